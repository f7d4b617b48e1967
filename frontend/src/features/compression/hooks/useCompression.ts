import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { compressionKeys } from '../api/keys';
import {
  compressModelVersion,
  getCompression,
  getJob,
  listCompressionsOf,
  listProjectModelVersions,
  listTargetProfiles,
  postBrowserLatency,
} from '../api/compressions';
import type { BrowserLatencyBody, CompressBody, Compression } from '../api/types';

export const LIVE_INTERVAL_MS = 1500;

const ACTIVE = new Set(['queued', 'running']);

export function isActiveStatus(status: string | null | undefined): boolean {
  return !!status && ACTIVE.has(status);
}

/**
 * A compression, polled until its report is in or it ended without one: the row's own status (its job's,
 * read in the same answer as the report) decides.
 */
export function useCompression(id: number) {
  return useQuery({
    queryKey: compressionKeys.detail(id),
    queryFn: () => getCompression(id),
    enabled: Number.isInteger(id),
    refetchInterval: (query) => {
      const data = query.state.data;
      if (!data) return LIVE_INTERVAL_MS;
      if (data.report) return false;
      return data.status && !isActiveStatus(data.status) ? false : LIVE_INTERVAL_MS;
    },
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
    mutationFn: (body: BrowserLatencyBody) => postBrowserLatency(compressionId, body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: compressionKeys.detail(compressionId) }),
  });
}

/** A version's compression runs, polled while one of them is still running. */
export function useCompressionsOf(parentId: number) {
  return useQuery({
    queryKey: compressionKeys.ofParent(parentId),
    queryFn: () => listCompressionsOf(parentId),
    enabled: Number.isInteger(parentId),
    refetchInterval: (query) => (query.state.data?.some((run) => isActiveStatus(run.status)) ? LIVE_INTERVAL_MS * 2 : false),
  });
}
