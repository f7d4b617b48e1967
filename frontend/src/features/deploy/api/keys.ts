import { modelVersionKeys } from '@/api/queryKeys';

export type UsageWindow = '1h' | '24h' | '7d';

export const deployKeys = {
  deployments: ['deployments'] as const,
  deploymentList: (projectId: number) => [...deployKeys.deployments, 'list', { project: projectId }] as const,
  deployment: (id: number) => [...deployKeys.deployments, 'detail', id] as const,
  apiKeys: (deploymentId: number) => [...deployKeys.deployments, 'detail', deploymentId, 'keys'] as const,
  usage: (deploymentId: number, window: UsageWindow) => [...deployKeys.deployments, 'detail', deploymentId, 'usage', window] as const,
  shadowAgreement: (deploymentId: number, window: UsageWindow) =>
    [...deployKeys.deployments, 'detail', deploymentId, 'shadow-agreement', window] as const,
  packages: ['packages'] as const,
  packageList: (filters: { project?: number; model_version?: number }) => [...deployKeys.packages, 'list', filters] as const,
  packageJob: (jobId: number) => [...deployKeys.packages, 'job', jobId] as const,
  // The training pages' entries: a version trained there is offered here without a refetch.
  modelVersions: modelVersionKeys.list,
  modelVersion: modelVersionKeys.detail,
};
