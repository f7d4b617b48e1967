import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { UploadProgress } from '@/api/client';
import { listTemplates } from '@/api/templates';
import { deleteBackbone, listBackbones, uploadBackbone } from '../api/backbones';
import { getTrainingEstimates } from '../api/estimates';
import { trainingKeys } from '../api/keys';
import {
  compareModelVersions,
  getDatasetVersion,
  getEvaluation,
  getModelVersion,
  listModelVersions,
  type ModelVersion,
} from '../api/modelVersions';
import { listProgressEvents, mergeEvents, startTraining, type JobEvent } from '../api/trainingJobs';

export const LIVE_INTERVAL_MS = 1000;

export function useTemplates() {
  return useQuery({ queryKey: trainingKeys.templates, queryFn: listTemplates, staleTime: 5 * 60_000 });
}

/** What each preset of the version's template will take and give (refreshed while the form is open: workers come and go). */
export function useTrainingEstimates(datasetVersion: number | null) {
  return useQuery({
    queryKey: trainingKeys.estimates(datasetVersion ?? -1),
    queryFn: () => getTrainingEstimates(datasetVersion as number),
    enabled: datasetVersion !== null,
    refetchInterval: 30_000,
  });
}

export function useStartTraining() {
  return useMutation({ mutationFn: startTraining, meta: { handlesOwnErrors: true } });
}

/**
 * A training job's progress events, kept in the cache and extended by polling with `after=<last
 * seq>`, so each poll fetches only the new points. Polls while `live`, and once more when it stops.
 */
export function useTrainingCurves(jobId: number, live: boolean) {
  const queryClient = useQueryClient();
  const key = trainingKeys.curves(jobId);
  const query = useQuery({
    queryKey: key,
    queryFn: async () => {
      const previous = queryClient.getQueryData<JobEvent[]>(key) ?? [];
      const after = previous.length ? previous[previous.length - 1].seq : null;
      return mergeEvents(previous, await listProgressEvents(jobId, after));
    },
    refetchInterval: live ? LIVE_INTERVAL_MS : false,
    refetchOnWindowFocus: false,
  });
  const wasLive = useRef(live);
  const { refetch } = query;
  useEffect(() => {
    if (wasLive.current && !live) void refetch();
    wasLive.current = live;
  }, [live, refetch]);
  return query;
}

export function useModelVersions(projectId: number) {
  return useQuery({
    queryKey: trainingKeys.modelVersionList(projectId),
    queryFn: () => listModelVersions(projectId),
    enabled: Number.isFinite(projectId),
  });
}

export function useModelVersion(id: number) {
  return useQuery({ queryKey: trainingKeys.modelVersion(id), queryFn: () => getModelVersion(id), enabled: Number.isFinite(id) });
}

export function useEvaluation(id: number) {
  return useQuery({ queryKey: trainingKeys.evaluation(id), queryFn: () => getEvaluation(id), enabled: Number.isFinite(id), staleTime: Infinity });
}

export function useComparison(a: number | null, b: number | null) {
  return useQuery({
    queryKey: trainingKeys.comparison(a ?? -1, b ?? -1),
    queryFn: () => compareModelVersions(a as number, b as number),
    enabled: a !== null && b !== null && a !== b,
  });
}

/** Names (V1, V2, ...) of the dataset versions that model versions were trained on. */
export function useDatasetVersionNames(versions: Pick<ModelVersion, 'dataset' | 'dataset_version'>[]) {
  const pairs = new Map<number, number>();
  for (const version of versions) {
    if (version.dataset !== null && version.dataset_version !== null) pairs.set(version.dataset_version, version.dataset);
  }
  return useQueries({
    queries: [...pairs].map(([id, datasetId]) => ({
      queryKey: trainingKeys.datasetVersion(datasetId, id),
      queryFn: () => getDatasetVersion(datasetId, id),
      staleTime: Infinity,
    })),
    combine: (results) => new Map(results.flatMap((result) => (result.data ? [[result.data.id, result.data.name] as const] : []))),
  });
}

/** A project's backbones; polled while any is still being checked, so its status updates live. */
export function useBackbones(projectId: number) {
  return useQuery({
    queryKey: trainingKeys.backboneList(projectId),
    queryFn: () => listBackbones(projectId),
    enabled: Number.isFinite(projectId),
    refetchInterval: (query) => (query.state.data?.results.some((backbone) => backbone.status === 'pending') ? LIVE_INTERVAL_MS : false),
  });
}

export function useUploadBackbone(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ file, name, onProgress }: { file: File; name: string; onProgress?: (progress: UploadProgress) => void }) =>
      uploadBackbone({ project: projectId, file, name }, onProgress),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trainingKeys.backboneList(projectId) }),
    meta: { handlesOwnErrors: true },
  });
}

export function useDeleteBackbone(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteBackbone,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trainingKeys.backboneList(projectId) }),
  });
}
