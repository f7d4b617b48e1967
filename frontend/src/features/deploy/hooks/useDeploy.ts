import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createDeploymentKey, listDeploymentKeys, revokeDeploymentKey } from '../api/apiKeys';
import {
  createDeployment,
  deleteDeployment,
  getDeployment,
  getModelVersion,
  listDeployments,
  listProjectModelVersions,
  rollbackDeployment,
  startDeployment,
  stopDeployment,
  switchDeployment,
  type Deployment,
} from '../api/deployments';
import { deployKeys, type UsageWindow } from '../api/keys';
import { createPackage, deletePackage, getPackageJob, isBuilding, listPackages } from '../api/packages';
import { tryPredict, tryUrl, type TryInput } from '../api/predict';
import { getShadowAgreement, promoteCanary, setShadow, setTraffic, type CanaryDraft } from '../api/traffic';
import { getUsage } from '../api/usage';

/** Poll about once a second while a package builds; usage refreshes every few seconds when live. */
export const LIVE_INTERVAL_MS = 1000;
export const USAGE_REFRESH_MS = 5000;

export function useDeployments(projectId: number) {
  return useQuery({
    queryKey: deployKeys.deploymentList(projectId),
    queryFn: () => listDeployments(projectId),
    enabled: Number.isFinite(projectId),
  });
}

export function useDeployment(id: number) {
  return useQuery({ queryKey: deployKeys.deployment(id), queryFn: () => getDeployment(id), enabled: Number.isFinite(id) });
}

export function useModelVersion(id: number | null) {
  return useQuery({ queryKey: deployKeys.modelVersion(id ?? -1), queryFn: () => getModelVersion(id as number), enabled: id !== null });
}

export function useProjectModelVersions(projectId: number | undefined) {
  return useQuery({
    queryKey: deployKeys.modelVersions(projectId ?? -1),
    queryFn: () => listProjectModelVersions(projectId as number),
    enabled: projectId !== undefined && Number.isFinite(projectId),
  });
}

function useStoreDeployment() {
  const queryClient = useQueryClient();
  return (deployment: Deployment) => {
    queryClient.setQueryData(deployKeys.deployment(deployment.id), deployment);
    return queryClient.invalidateQueries({ queryKey: [...deployKeys.deployments, 'list'] });
  };
}

export function useCreateDeployment() {
  const store = useStoreDeployment();
  return useMutation({ mutationFn: createDeployment, onSuccess: store, meta: { handlesOwnErrors: true } });
}

/** switch / rollback / stop / start: each answers the updated deployment. */
export function useDeploymentAction() {
  const store = useStoreDeployment();
  return useMutation({
    mutationFn: (
      action: { kind: 'switch'; id: number; modelVersion: number } | { kind: 'rollback' | 'stop' | 'start'; id: number },
    ) => {
      switch (action.kind) {
        case 'switch':
          return switchDeployment({ id: action.id, modelVersion: action.modelVersion });
        case 'rollback':
          return rollbackDeployment(action.id);
        case 'stop':
          return stopDeployment(action.id);
        case 'start':
          return startDeployment(action.id);
      }
    },
    onSuccess: store,
  });
}

/** Traffic split changes (canaries, promote, shadow): each answers the updated deployment. */
export function useTrafficAction() {
  const store = useStoreDeployment();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (
      action:
        | { kind: 'traffic'; id: number; canaries: CanaryDraft[]; sticky?: boolean }
        | { kind: 'promote'; id: number; modelVersion: number }
        | { kind: 'shadow'; id: number; modelVersion: number | null },
    ) => {
      switch (action.kind) {
        case 'traffic':
          return setTraffic(action);
        case 'promote':
          return promoteCanary(action);
        case 'shadow':
          return setShadow(action);
      }
    },
    onSuccess: async (deployment) => {
      await store(deployment);
      // The agreement belongs to the shadow: a new one starts from nothing.
      return queryClient.invalidateQueries({ queryKey: [...deployKeys.deployment(deployment.id), 'shadow-agreement'] });
    },
  });
}

export function useShadowAgreement(deploymentId: number, window: UsageWindow, enabled: boolean, live: boolean) {
  return useQuery({
    queryKey: deployKeys.shadowAgreement(deploymentId, window),
    queryFn: () => getShadowAgreement(deploymentId, window),
    enabled,
    refetchInterval: live ? USAGE_REFRESH_MS : false,
  });
}

export function useDeleteDeployment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteDeployment,
    onSuccess: (_data, id) => {
      queryClient.removeQueries({ queryKey: deployKeys.deployment(id) });
      return queryClient.invalidateQueries({ queryKey: [...deployKeys.deployments, 'list'] });
    },
  });
}

export function useDeploymentKeys(deploymentId: number) {
  return useQuery({ queryKey: deployKeys.apiKeys(deploymentId), queryFn: () => listDeploymentKeys(deploymentId) });
}

export function useCreateDeploymentKey(deploymentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createDeploymentKey,
    meta: { handlesOwnErrors: true },
    // The key is shown once (ApiKeysPanel's dialog) and kept nowhere in the browser.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: deployKeys.apiKeys(deploymentId) }),
  });
}

export function useRevokeDeploymentKey(deploymentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeDeploymentKey,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: deployKeys.apiKeys(deploymentId) }),
  });
}

export function useUsage(deploymentId: number, window: UsageWindow, live: boolean) {
  return useQuery({
    queryKey: deployKeys.usage(deploymentId, window),
    queryFn: () => getUsage(deploymentId, window),
    refetchInterval: live ? USAGE_REFRESH_MS : false,
  });
}

/** Try a model version, or what a deployment serves now, signed in (no key; see api/predict.tryPredict). */
export function useTryPredict(target: { modelVersion: number } | { deployment: number }) {
  const queryClient = useQueryClient();
  const url = tryUrl(target);
  return useMutation({
    mutationFn: (input: TryInput & { topK: number; detection?: { scoreThreshold: number; maxDetections: number } }) => tryPredict({ url, ...input }),
    meta: { handlesOwnErrors: true },
    // A deployment's try is counted in its usage: show it without waiting for the next refresh.
    onSettled: () => {
      if ('deployment' in target) return queryClient.invalidateQueries({ queryKey: [...deployKeys.deployment(target.deployment), 'usage'] });
    },
  });
}

export function usePackages(filters: { project?: number; model_version?: number }) {
  return useQuery({
    queryKey: deployKeys.packageList(filters),
    queryFn: () => listPackages(filters),
    enabled: Object.values(filters).some((value) => value !== undefined && Number.isFinite(value)),
    refetchInterval: (query) => (query.state.data?.results.some((pkg) => isBuilding(pkg.status)) ? LIVE_INTERVAL_MS : false),
  });
}

export function usePackageJob(jobId: number | null, live: boolean) {
  return useQuery({
    queryKey: deployKeys.packageJob(jobId ?? -1),
    queryFn: () => getPackageJob(jobId as number),
    enabled: jobId !== null && live,
    refetchInterval: live ? LIVE_INTERVAL_MS : false,
  });
}

export function useCreatePackage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createPackage,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...deployKeys.packages, 'list'] }),
  });
}

export function useDeletePackage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deletePackage,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...deployKeys.packages, 'list'] }),
  });
}
