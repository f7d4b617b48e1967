import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

/** One change of a sample's label, boxes or review: who, when, from where, the value before and after. */
export type SampleActivity = components['schemas']['SampleActivity'];
export type ActivityValue = components['schemas']['ActivityValue'];
export type ActivitySource = SampleActivity['source'];

/** The newest entries of one sample's log (a sample's history is short; the first page is plenty). */
export const ACTIVITY_PAGE_SIZE = 50;

export function listSampleActivity(datasetId: number, sampleId: number) {
  return unwrap(
    api.GET('/api/v1/datasets/{dataset_id}/activity/', {
      params: { path: { dataset_id: datasetId }, query: { sample: sampleId, page_size: ACTIVITY_PAGE_SIZE } },
    }),
  );
}

/** Puts the sample back to the entry's `before` value; a 409 `label_conflict` when it changed since. */
export function revertActivity(datasetId: number, activityId: number) {
  return unwrap(api.POST('/api/v1/datasets/{dataset_id}/activity/{id}/revert/', { params: { path: { dataset_id: datasetId, id: activityId } } }));
}
