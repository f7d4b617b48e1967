import { datasetKeys as resourceKeys } from '@/api/queryKeys';
import type { SampleFilters } from './samples';

/** The shared dataset keys and, under a dataset's detail key, what only the datasets pages read. */
export const datasetKeys = {
  ...resourceKeys,
  statistics: (id: number) => [...resourceKeys.detail(id), 'statistics'] as const,
  labels: (id: number) => [...resourceKeys.detail(id), 'labels'] as const,
  samples: (id: number) => [...resourceKeys.detail(id), 'samples'] as const,
  samplePage: (id: number, filters: SampleFilters) => [...datasetKeys.samples(id), 'page', filters] as const,
  imports: (id: number) => [...resourceKeys.detail(id), 'imports'] as const,
  importBatch: (id: number, batchId: number) => [...datasetKeys.imports(id), batchId] as const,
};
