import { datasetKeys as resourceKeys } from '@/api/queryKeys';
import type { SampleFilters } from './samples';

/** The shared dataset keys and, under a dataset's detail key, what only the datasets pages read. */
export const datasetKeys = {
  ...resourceKeys,
  statistics: (id: number) => [...resourceKeys.detail(id), 'statistics'] as const,
  /** A tabular dataset's column profile or a forecasting dataset's series profile (recomputed by each import). */
  profile: (id: number) => [...resourceKeys.detail(id), 'profile'] as const,
  labels: (id: number) => [...resourceKeys.detail(id), 'labels'] as const,
  samples: (id: number) => [...resourceKeys.detail(id), 'samples'] as const,
  samplePage: (id: number, filters: SampleFilters) => [...datasetKeys.samples(id), 'page', filters] as const,
  sample: (id: number, sampleId: number) => [...resourceKeys.detail(id), 'sample', sampleId] as const,
  /** Kept apart from `samples` (which label writes refresh): the box labeler's order of images stays put while it labels them. */
  annotateQueue: (id: number, filters: SampleFilters) => [...resourceKeys.detail(id), 'annotateQueue', filters] as const,
  annotations: (id: number, sampleId: number) => [...resourceKeys.detail(id), 'annotations', sampleId] as const,
  /** One sample's activity log; `version` (its label_version / revision) refetches it after each write. */
  activity: (id: number, sampleId: number, version?: number) => [...resourceKeys.detail(id), 'activity', sampleId, ...(version === undefined ? [] : [version])] as const,
  imports: (id: number) => [...resourceKeys.detail(id), 'imports'] as const,
  /** A datasets.version or datasets.export job of the dataset (polled until it finishes). */
  job: (id: number, jobId: number | null) => [...resourceKeys.detail(id), 'job', jobId] as const,
  importBatch: (id: number, batchId: number) => [...datasetKeys.imports(id), batchId] as const,
};
