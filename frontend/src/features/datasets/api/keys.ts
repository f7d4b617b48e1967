import type { SampleFilters } from './samples';

export const datasetKeys = {
  all: ['datasets'] as const,
  list: (projectId: number) => [...datasetKeys.all, 'list', { project: projectId }] as const,
  detail: (id: number) => [...datasetKeys.all, 'detail', id] as const,
  statistics: (id: number) => [...datasetKeys.detail(id), 'statistics'] as const,
  labels: (id: number) => [...datasetKeys.detail(id), 'labels'] as const,
  samples: (id: number) => [...datasetKeys.detail(id), 'samples'] as const,
  samplePage: (id: number, filters: SampleFilters) => [...datasetKeys.samples(id), 'page', filters] as const,
  imports: (id: number) => [...datasetKeys.detail(id), 'imports'] as const,
  importBatch: (id: number, batchId: number) => [...datasetKeys.imports(id), batchId] as const,
  versions: (id: number) => [...datasetKeys.detail(id), 'versions'] as const,
};
