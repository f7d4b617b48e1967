import { ApiError, api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type AnnotationRecord = components['schemas']['AnnotationRecord'];
/** A sample's annotations; `revision` is its concurrency counter (a write names the one it read). */
export type SampleAnnotations = components['schemas']['SampleAnnotations'];
export type AnnotationsWrite = components['schemas']['SampleAnnotationsWriteRequest'];
export type AnnotationStatus = components['schemas']['AnnotationStatusEnum'];

export function getAnnotations(datasetId: number, sampleId: number): Promise<SampleAnnotations> {
  return unwrap(api.GET('/api/v1/datasets/{dataset_id}/samples/{id}/annotations/', { params: { path: { dataset_id: datasetId, id: sampleId } } }));
}

/** Replaces the sample's annotations if it is still at `write.revision` (else a 409 `annotation_conflict`). */
export function putAnnotations(datasetId: number, sampleId: number, write: AnnotationsWrite): Promise<SampleAnnotations> {
  return unwrap(
    api.PUT('/api/v1/datasets/{dataset_id}/samples/{id}/annotations/', { params: { path: { dataset_id: datasetId, id: sampleId } }, body: write }),
  );
}

/** The sample's current annotations from a 409 `annotation_conflict` answer, or null for any other error. */
export function annotationConflict(error: unknown): SampleAnnotations | null {
  if (!(error instanceof ApiError) || error.status !== 409 || error.code !== 'annotation_conflict') return null;
  const details = error.details as components['schemas']['AnnotationConflictDetails'] | null;
  return details?.current ?? null;
}

/** One sample (its image URL and name) for the labeler. */
export function getSample(datasetId: number, id: number) {
  return unwrap(api.GET('/api/v1/datasets/{dataset_id}/samples/{id}/', { params: { path: { dataset_id: datasetId, id } } }));
}
