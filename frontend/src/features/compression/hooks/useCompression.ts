import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { compressionKeys } from '../api/keys';
import {
  compressModelVersion,
  getCompression,
  getJob,
  listProjectModelVersions,
  listTargetProfiles,
  postBrowserLatency,
} from '../api/compressions';
import type { BrowserLatency, CompressBody, Compression } from '../api/types';

export const LIVE_INTERVAL_MS = 1500;

const ACTIVE = new Set(['queued', 'running']);

export function isActiveStatus(status: string | null | undefined): boolean {
  return !!status && ACTIVE.has(status);
}

/** A compression, polled until its report is in (or its job ended without one). */
export function useCompression(id: number, jobDone: boolean) {
  return useQuery({
    queryKey: compressionKeys.detail(id),
    queryFn: () => getCompression(id),
    enabled: Number.isInteger(id),
    refetchInterval: (query) => (query.state.data && (query.state.data.report || jobDone) ? false : LIVE_INTERVAL_MS),
  });
}

/** The compression's job (progress), polled while it is queued or running. */
export function useCompressionJob(jobId: number | null) {
  return useQuery({
    queryKey: compressionKeys.job(jobId ?? -1),
    queryFn: () => getJob(jobId as number),
    enabled: jobId !== null,
    refetchInterval: (query) => (!query.state.data || isActiveStatus(query.state.data.status) ? LIVE_INTERVAL_MS : false),
  });
}

export function useTargetProfiles(workspaceId: number | null, enabled = true) {
  return useQuery({ queryKey: compressionKeys.targets(workspaceId), queryFn: () => listTargetProfiles(workspaceId), enabled, staleTime: 30_000 });
}

export function useProjectModelVersions(projectId: number, enabled = true) {
  return useQuery({ queryKey: ['compression', 'model-versions', projectId], queryFn: () => listProjectModelVersions(projectId), enabled, staleTime: 10_000 });
}

export function useCompress(modelVersionId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CompressBody) => compressModelVersion(modelVersionId, body),
    onSuccess: (compression: Compression) => {
      queryClient.setQueryData(compressionKeys.detail(compression.id), compression);
      return queryClient.invalidateQueries({ queryKey: compressionKeys.all });
    },
  });
}

export function useSaveBrowserLatency(compressionId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Omit<BrowserLatency, 'measured_at'>) => postBrowserLatency(compressionId, body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: compressionKeys.detail(compressionId) }),
  });
}
