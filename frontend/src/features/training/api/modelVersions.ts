import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';
import { i18n } from '@/i18n';
import { isForecastingTemplate } from '@/lib/forecasting';
import { formatNumber as formatLocalNumber, formatPercent as formatLocalPercent } from '@/lib/numbers';

export type ModelVersion = components['schemas']['ModelVersion'];
/** A model version's evaluation report, by its `kind` (workers/contracts/evaluation.py). */
export type EvaluationReport = NonNullable<components['schemas']['ModelVersionEvaluation']['evaluation']>;
export type ClassificationReport = components['schemas']['ClassificationReport'];
export type RegressionReport = components['schemas']['RegressionReport'];
export type Mistake = components['schemas']['Mistake'];
export type FeatureImportance = components['schemas']['FeatureImportance'];
export type MetricPair = components['schemas']['MetricPair'];
export type Comparison = components['schemas']['ModelVersionComparison'];
export type SampleRef = Mistake['sample'];

/** A report's sample reference as a sample id of the dataset (null if it is not one). */
export function sampleIdOf(ref: SampleRef): number | null {
  if (typeof ref === 'number' && Number.isInteger(ref)) return ref;
  if (typeof ref === 'string' && /^\d+$/.test(ref)) return Number(ref);
  return null;
}

/** What a template's samples are: images, texts or table rows (the catalogs name them: `training:report.nouns.<kind>`). */
export type SampleKind = 'image' | 'text' | 'row';

export function sampleKind(template: string): SampleKind {
  if (template.startsWith('text')) return 'text';
  if (template.startsWith('tabular')) return 'row';
  return 'image';
}

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
  return version.metrics.test?.accuracy ?? null;
}

/** A fraction as a percentage in the UI's language ("70.0%"), a dash when missing. */
export function formatPercent(value: number | null | undefined, digits = 1): string {
  return typeof value === 'number' && Number.isFinite(value) ? formatLocalPercent(value, digits) : '—';
}

/** A number for metrics without a unit (MAE, RMSE, R²): 4 significant digits in the UI's language, an exponent only for extreme sizes. */
export function formatNumber(value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude >= 1e6 || magnitude < 1e-3)) return value.toExponential(2);
  return formatLocalNumber(value, { maximumSignificantDigits: 4 });
}

export function isRegression(version: Pick<ModelVersion, 'template'>): boolean {
  return typeof version.template === 'string' && version.template.endsWith('regression');
}

/**
 * The metric a model version is judged by in lists: test accuracy for classifiers, R² and RMSE
 * for regression (from `metrics.test`, which is the evaluation's headline).
 */
export function headlineMetric(version: Pick<ModelVersion, 'metrics' | 'template'>): { label: string; value: string; title: string } {
  const test = version.metrics.test ?? {};
  if (version.template === 'object_detection') {
    // a detector's headline is its report's: mAP@.5 and mAP@[.5:.95] on the test split
    // (typed once the schema's test metrics list them)
    const detection = test as { map50?: number; map?: number };
    const numbers = { map50: formatPercent(detection.map50), map: formatPercent(detection.map) };
    return {
      label: i18n.t('training:versions.headline.detection', numbers),
      value: numbers.map50,
      title: i18n.t('training:versions.headline.detectionTitle', numbers),
    };
  }
  if (isForecastingTemplate(version.template)) {
    // a forecaster's headline is its report's: MASE (lower is better) and sMAPE on the test window
    const forecast = test as { mase?: number; smape?: number; coverage?: number | null };
    const numbers = { mase: formatNumber(forecast.mase), smape: formatNumber(forecast.smape), coverage: formatPercent(forecast.coverage) };
    return {
      label: i18n.t('training:versions.headline.forecast', numbers),
      value: numbers.mase,
      title: i18n.t('training:versions.headline.forecastTitle', numbers),
    };
  }
  if (isRegression(version) || (test.rmse !== undefined && test.accuracy === undefined)) {
    const numbers = { mae: formatNumber(test.mae), rmse: formatNumber(test.rmse), r2: formatNumber(test.r2) };
    return {
      label: i18n.t('training:versions.headline.regression', numbers),
      value: numbers.r2,
      title: i18n.t('training:versions.headline.regressionTitle', numbers),
    };
  }
  const accuracy = formatPercent(testAccuracy(version));
  return { label: accuracy, value: accuracy, title: i18n.t('training:versions.headline.accuracyTitle', { value: accuracy }) };
}
