import { ApiError, api, unwrap } from '@/api/client';
import type { components, paths } from '@/api/schema';

export type Sample = components['schemas']['Sample'];
export type SamplePage = components['schemas']['SamplePage'];
export type SampleCounts = components['schemas']['SampleCounts'];
type SampleQuery = NonNullable<paths['/api/v1/datasets/{dataset_id}/samples/']['get']['parameters']['query']>;
export type BulkLabelResult = components['schemas']['BulkLabelResult'];
/** A sample's label as the server holds it now (what a 409 reports). */
export type CurrentLabel = Pick<Sample, 'id' | 'label' | 'label_name' | 'label_version'>;

export const SAMPLES_PAGE_SIZE = 48;

/** `label`: a label id, 'unlabeled', 'labeled' or null for all. */
export type SampleFilters = { label: number | 'unlabeled' | 'labeled' | null; search: string; page: number };

export async function listSamples(datasetId: number, filters: SampleFilters) {
  const query: SampleQuery = { page_size: SAMPLES_PAGE_SIZE, page: filters.page > 1 ? filters.page : undefined };
  if (typeof filters.label === 'number') query.label = filters.label;
  else if (filters.label === 'unlabeled') query.unlabeled = true;
  else if (filters.label === 'labeled') query.unlabeled = false;
  if (filters.search.trim()) query.search = filters.search.trim();
  // The schema documents this answer as a page of SamplePage objects (drf-spectacular wrapped the
  // already-paginated SamplePage serializer once more); the server sends one SamplePage.
  const page: unknown = await unwrap(api.GET('/api/v1/datasets/{dataset_id}/samples/', { params: { path: { dataset_id: datasetId }, query } }));
  return page as SamplePage;
}

export function getSample(datasetId: number, id: number) {
  return unwrap(api.GET('/api/v1/datasets/{dataset_id}/samples/{id}/', { params: { path: { dataset_id: datasetId, id } } }));
}

/** Sets one sample's label if it is still at `labelVersion` (else a 409 LabelConflict). */
export function setSampleLabel(datasetId: number, id: number, label: number | null, labelVersion: number) {
  return unwrap(
    api.PATCH('/api/v1/datasets/{dataset_id}/samples/{id}/', {
      params: { path: { dataset_id: datasetId, id } },
      body: { label, label_version: labelVersion },
    }),
  );
}

/** All or nothing: a 409 lists the samples that changed meanwhile. */
export function bulkLabel(datasetId: number, label: number | null, items: { id: number; label_version: number }[]) {
  return unwrap(
    api.POST('/api/v1/datasets/{dataset_id}/samples/bulk-label/', { params: { path: { dataset_id: datasetId } }, body: { label, items } }),
  );
}

function isCurrentLabel(value: unknown): value is CurrentLabel {
  if (!value || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  return typeof record.id === 'number' && typeof record.label_version === 'number' && (record.label === null || typeof record.label === 'number');
}

/**
 * The samples' current labels from a 409 answer: `details.current` for one sample,
 * `details.conflicts` for a bulk write. Empty for any other error.
 */
export function conflictsOf(error: unknown): CurrentLabel[] {
  if (!(error instanceof ApiError) || error.status !== 409 || !error.details || typeof error.details !== 'object') return [];
  const details = error.details as { current?: unknown; conflicts?: unknown };
  const found = [details.current, ...(Array.isArray(details.conflicts) ? details.conflicts : [])];
  return found.filter(isCurrentLabel);
}
