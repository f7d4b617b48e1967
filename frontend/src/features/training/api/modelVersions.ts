import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type ModelVersion = components['schemas']['ModelVersion'];
export type Comparison = components['schemas']['Comparison'];

export function listModelVersions(projectId: number) {
  return unwrap(api.GET('/api/v1/model-versions/', { params: { query: { project: projectId, page_size: 100 } } }));
}

export function getModelVersion(id: number) {
  return unwrap(api.GET('/api/v1/model-versions/{id}/', { params: { path: { id } } }));
}

export function getEvaluation(id: number) {
  return unwrap(api.GET('/api/v1/model-versions/{id}/evaluation/', { params: { path: { id } } }));
}

export function compareModelVersions(a: number, b: number) {
  return unwrap(api.GET('/api/v1/model-versions/compare/', { params: { query: { a, b } } }));
}

export function getDatasetVersion(datasetId: number, id: number) {
  return unwrap(api.GET('/api/v1/datasets/{dataset_id}/versions/{id}/', { params: { path: { dataset_id: datasetId, id } } }));
}

export function onnxUrl(id: number): string {
  return `/api/v1/model-versions/${id}/onnx/`;
}

export function sampleThumbnailUrl(datasetId: number, sampleId: number): string {
  return `/api/v1/datasets/${datasetId}/samples/${sampleId}/thumbnail/`;
}

/** The headline test accuracy in a model version's `metrics` ({test: {accuracy, ...}, ...}). */
export function testAccuracy(version: Pick<ModelVersion, 'metrics'>): number | null {
  const test = (version.metrics as { test?: { accuracy?: unknown } } | null)?.test;
  return typeof test?.accuracy === 'number' ? test.accuracy : null;
}

export function formatPercent(value: number | null | undefined, digits = 1): string {
  return typeof value === 'number' && Number.isFinite(value) ? `${(value * 100).toFixed(digits)}%` : '—';
}

/** A number for metrics without a unit (MAE, RMSE, R²): 4 significant digits, no exponent for everyday sizes. */
export function formatNumber(value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude >= 1e6 || magnitude < 1e-3)) return value.toExponential(2);
  return Number(value.toPrecision(4)).toString();
}

export function isRegression(version: Pick<ModelVersion, 'template'>): boolean {
  return typeof version.template === 'string' && version.template.endsWith('regression');
}

/**
 * The metric a model version is judged by in lists: test accuracy for classifiers, R² and RMSE
 * for regression (from `metrics.test`, which is the evaluation's headline).
 */
export function headlineMetric(version: Pick<ModelVersion, 'metrics' | 'template'>): { label: string; value: string; title: string } {
  const test = ((version.metrics as { test?: Record<string, unknown> } | null)?.test ?? {}) as Record<string, unknown>;
  const get = (key: string) => (typeof test[key] === 'number' ? (test[key] as number) : null);
  if (isRegression(version) || (get('rmse') !== null && get('accuracy') === null)) {
    return {
      label: `R² ${formatNumber(get('r2'))} · RMSE ${formatNumber(get('rmse'))}`,
      value: formatNumber(get('r2')),
      title: `test MAE ${formatNumber(get('mae'))}, RMSE ${formatNumber(get('rmse'))}, R² ${formatNumber(get('r2'))}`,
    };
  }
  const accuracy = testAccuracy(version);
  return { label: formatPercent(accuracy), value: formatPercent(accuracy), title: `test accuracy ${formatPercent(accuracy)}` };
}
