export const automlKeys = {
  studies: ['studies'] as const,
  studyList: (projectId?: number) => [...automlKeys.studies, 'list', { project: projectId ?? null }] as const,
  study: (id: number) => [...automlKeys.studies, 'detail', id] as const,
  trials: (id: number) => [...automlKeys.studies, 'detail', id, 'trials'] as const,
  results: (id: number) => [...automlKeys.studies, 'detail', id, 'results'] as const,
  projects: ['automl', 'projects'] as const,
  datasets: (projectId: number) => ['automl', 'datasets', projectId] as const,
  versions: (datasetId: number) => ['automl', 'versions', datasetId] as const,
  templates: ['templates'] as const,
};
