import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { datasetKeys } from '../api/keys';
import { createLabel, deleteLabel, listLabels, mergeLabel, renameLabel } from '../api/labels';

export function useLabels(datasetId: number) {
  return useQuery({ queryKey: datasetKeys.labels(datasetId), queryFn: () => listLabels(datasetId) });
}

/** Label changes touch samples, counts and statistics: refresh everything under the dataset. */
function useRefreshDataset(datasetId: number) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: datasetKeys.detail(datasetId) });
}

export function useCreateLabel(datasetId: number) {
  const refresh = useRefreshDataset(datasetId);
  return useMutation({ mutationFn: (name: string) => createLabel(datasetId, name), meta: { handlesOwnErrors: true }, onSuccess: refresh });
}

export function useRenameLabel(datasetId: number) {
  const refresh = useRefreshDataset(datasetId);
  return useMutation({
    mutationFn: ({ id, name }: { id: number; name: string }) => renameLabel(datasetId, id, name),
    meta: { handlesOwnErrors: true },
    onSuccess: refresh,
  });
}

export function useMergeLabel(datasetId: number) {
  const refresh = useRefreshDataset(datasetId);
  return useMutation({
    mutationFn: ({ id, into, dryRun }: { id: number; into: number; dryRun: boolean }) => mergeLabel(datasetId, id, into, dryRun),
    meta: { handlesOwnErrors: true },
    onSuccess: (change) => (change.dry_run ? undefined : refresh()),
  });
}

export function useDeleteLabel(datasetId: number) {
  const refresh = useRefreshDataset(datasetId);
  return useMutation({
    mutationFn: ({ id, dryRun }: { id: number; dryRun: boolean }) => deleteLabel(datasetId, id, dryRun),
    meta: { handlesOwnErrors: true },
    onSuccess: (change) => (change.dry_run ? undefined : refresh()),
  });
}
