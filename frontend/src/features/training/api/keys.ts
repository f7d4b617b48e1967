export const trainingKeys = {
  templates: ['templates'] as const,
  curves: (jobId: number) => ['training', 'curves', jobId] as const,
  modelVersions: ['model-versions'] as const,
  modelVersionList: (projectId: number) => [...trainingKeys.modelVersions, 'list', { project: projectId }] as const,
  modelVersion: (id: number) => [...trainingKeys.modelVersions, 'detail', id] as const,
  evaluation: (id: number) => [...trainingKeys.modelVersions, 'detail', id, 'evaluation'] as const,
  comparison: (a: number, b: number) => [...trainingKeys.modelVersions, 'compare', a, b] as const,
  datasetVersion: (datasetId: number, id: number) => ['datasets', 'detail', datasetId, 'versions', id] as const,
  backbones: ['backbones'] as const,
  backboneList: (projectId: number) => [...trainingKeys.backbones, 'list', { project: projectId }] as const,
};
