import { datasetKeys, modelVersionKeys, templateKeys } from '@/api/queryKeys';

export const trainingKeys = {
  templates: templateKeys.all,
  curves: (jobId: number) => ['training', 'curves', jobId] as const,
  estimates: (datasetVersion: number) => ['training', 'estimates', datasetVersion] as const,
  modelVersions: modelVersionKeys.all,
  modelVersionList: modelVersionKeys.list,
  modelVersion: modelVersionKeys.detail,
  evaluation: modelVersionKeys.evaluation,
  comparison: modelVersionKeys.comparison,
  datasetVersion: datasetKeys.version,
  backbones: ['backbones'] as const,
  backboneList: (projectId: number) => [...trainingKeys.backbones, 'list', { project: projectId }] as const,
};
