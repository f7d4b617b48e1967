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
