import { datasetKeys, templateKeys } from '@/api/queryKeys';

export const automlKeys = {
  studies: ['studies'] as const,
  studyList: (projectId?: number) => [...automlKeys.studies, 'list', { project: projectId ?? null }] as const,
  study: (id: number) => [...automlKeys.studies, 'detail', id] as const,
  trials: (id: number) => [...automlKeys.studies, 'detail', id, 'trials'] as const,
  results: (id: number) => [...automlKeys.studies, 'detail', id, 'results'] as const,
  defaults: (template: string) => [...automlKeys.studies, 'defaults', template] as const,
  // Projects and dataset versions keep entries of their own: the study form reads every project at once and
  // a dataset's versions as a page, where the projects and datasets pages keep other shapes (one key must
  // hold one shape). Its dataset list is the datasets pages' own query.
  projects: ['automl', 'projects'] as const,
  datasets: datasetKeys.list,
  versions: (datasetId: number) => ['automl', 'versions', datasetId] as const,
  templates: templateKeys.all,
  // the custom-code source's archive picker (a page of its own shape, apart from the Code tab's list)
  codeArchives: (projectId: number) => ['automl', 'code-archives', projectId] as const,
};
