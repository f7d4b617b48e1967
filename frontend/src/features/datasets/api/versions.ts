import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type DatasetVersion = components['schemas']['DatasetVersion'];
export type DatasetVersionCreateBody = components['schemas']['DatasetVersionCreateRequest'];

export async function listVersions(datasetId: number): Promise<DatasetVersion[]> {
  const data = await unwrap(
    api.GET('/api/v1/datasets/{dataset_id}/versions/', { params: { path: { dataset_id: datasetId }, query: { page_size: 100 } } }),
  );
  return data.results;
}

export function createVersion(datasetId: number, body: DatasetVersionCreateBody) {
  return unwrap(api.POST('/api/v1/datasets/{dataset_id}/versions/', { params: { path: { dataset_id: datasetId } }, body }));
}

export type Ratios = { train_ratio: number; val_ratio: number; test_ratio: number };

/** Field errors for split ratios, the same rules the server applies. */
export function validateRatios(ratios: Ratios): Partial<Record<keyof Ratios, string>> {
  const errors: Partial<Record<keyof Ratios, string>> = {};
  for (const key of ['train_ratio', 'val_ratio', 'test_ratio'] as const) {
    const value = ratios[key];
    if (!Number.isFinite(value) || value < 0 || value > 1) errors[key] = 'Between 0 and 1';
  }
  if (!errors.train_ratio && ratios.train_ratio <= 0) errors.train_ratio = 'The training split needs a ratio above 0';
  const total = ratios.train_ratio + ratios.val_ratio + ratios.test_ratio;
  if (Object.keys(errors).length === 0 && Math.abs(total - 1) > 1e-6) {
    errors.test_ratio = `The three ratios must add up to 1 (now ${Math.round(total * 1000) / 1000})`;
  }
  return errors;
}

/** The longest horizon a forecasting version may have (the server's limit). */
export const MAX_HORIZON = 1000;

/** Why a forecasting version's horizon is refused (a `versions.<key>` sentence), or null: a whole number from 1 to MAX_HORIZON. */
export function validateHorizon(horizon: number | string): 'horizonRequired' | 'horizonRange' | null {
  if (horizon === '' || horizon === null || horizon === undefined) return 'horizonRequired';
  if (typeof horizon !== 'number' || !Number.isInteger(horizon) || horizon < 1 || horizon > MAX_HORIZON) return 'horizonRange';
  return null;
}


/** A background job as the API answers it (a large dataset's version or export is made by one). */
export type DatasetJob = components['schemas']['Job'];

/** POST versions/ answers the version (201, made in the request) or the datasets.version job making it (202). */
export function isJob(answer: DatasetVersion | DatasetJob): answer is DatasetJob {
  return 'kind' in answer && 'status' in answer;
}

export function isJobFinished(job: DatasetJob): boolean {
  return job.status === 'succeeded' || job.status === 'failed' || job.status === 'cancelled';
}

export function getJob(id: number) {
  return unwrap(api.GET('/api/v1/jobs/{id}/', { params: { path: { id } } }));
}

/** Start a datasets.export job (any size); its zip downloads from exportJobUrl once it succeeded. */
export function startExportJob(datasetId: number, versionId?: number | null) {
  return unwrap(api.POST('/api/v1/datasets/{id}/exports/', { params: { path: { id: datasetId } }, body: { version: versionId ?? null, format: '' } }));
}

export function exportJobUrl(datasetId: number, jobId: number): string {
  return `/api/v1/datasets/${datasetId}/exports/${jobId}/`;
}
