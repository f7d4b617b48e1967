import { ApiError, api, unwrap } from '@/api/client';
import type { components, paths } from '@/api/schema';

export type Sample = components['schemas']['Sample'];
export type SamplePage = components['schemas']['SamplePage'];
export type SampleCounts = components['schemas']['SampleCounts'];
type SampleQuery = NonNullable<paths['/api/v1/datasets/{dataset_id}/samples/']['get']['parameters']['query']>;
export type BulkLabelResult = components['schemas']['BulkLabelResult'];
/** A sample's label as the server holds it now (what a 409 reports). */
export type CurrentLabel = components['schemas']['CurrentLabel'];
/**
 * The error of a label write's 409, as documented: `label_conflict` (the samples changed
 * meanwhile; `details` has their current labels) or `label_deleted` (the label is gone).
 */
export type LabelWriteConflict =
  | components['schemas']['SampleLabelWriteConflict']['error']
  | components['schemas']['BulkLabelConflictOrDeleted']['error'];

export const SAMPLES_PAGE_SIZE = 48;
/** The most samples one list request may pick by id (the server's limit on `ids`). */
export const MAX_PICKED_SAMPLES = 500;

/**
 * `label`: a label id, 'unlabeled', 'labeled' or null for all; `ids`: only these samples. Object
 * detection: `status` (annotation status) and `boxLabel` (images with a box of that label id).
 */
export type SampleFilters = {
  label: number | 'unlabeled' | 'labeled' | null;
  search: string;
  page: number;
  ids?: number[];
  status?: 'unlabeled' | 'annotated' | 'no_objects';
  boxLabel?: number;
};

export function listSamples(datasetId: number, filters: SampleFilters) {
  const query: SampleQuery = { page_size: SAMPLES_PAGE_SIZE, page: filters.page > 1 ? filters.page : undefined };
  if (typeof filters.label === 'number') query.label = filters.label;
  else if (filters.label === 'unlabeled') query.unlabeled = true;
  else if (filters.label === 'labeled') query.unlabeled = false;
  if (filters.search.trim()) query.search = filters.search.trim();
  if (filters.ids) query.ids = filters.ids;
  if (filters.status) query.annotation_status = filters.status;
  if (filters.boxLabel !== undefined) query.box_label = filters.boxLabel;
  return unwrap(
    api.GET('/api/v1/datasets/{dataset_id}/samples/', {
      params: { path: { dataset_id: datasetId }, query },
      // `ids` is documented comma-separated (style form, explode false): ids=1,2,3.
      querySerializer: { array: { style: 'form', explode: false } },
    }),
  );
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

/** A label write's 409 error, typed as the schema documents it; null for any other error. */
function labelWriteConflict(error: unknown): LabelWriteConflict | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  return { code: error.code, message: error.message, details: error.details } as LabelWriteConflict;
}

/**
 * The samples' current labels from a `label_conflict` answer: `details.current` for one sample,
 * `details.conflicts` for a bulk write. Empty for any other error.
 */
export function conflictsOf(error: unknown): CurrentLabel[] {
  const conflict = labelWriteConflict(error);
  if (conflict?.code !== 'label_conflict') return [];
  return 'current' in conflict.details ? [conflict.details.current] : conflict.details.conflicts;
}
