import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type TrainingEstimates = components['schemas']['TrainingEstimates'];
export type PresetEstimate = components['schemas']['PresetEstimate'];
export type WorkersOnline = components['schemas']['WorkersOnline'];

/** Each preset's expected time on the workers online, quality, size and speed, as measured by earlier runs. */
export function getTrainingEstimates(datasetVersion: number) {
  return unwrap(api.GET('/api/v1/training-estimates/', { params: { query: { dataset_version: datasetVersion } } }));
}
