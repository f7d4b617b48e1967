import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { datasetKeys } from '../api/keys';
import { createLabel, deleteLabel, listLabels, mergeLabel, renameLabel, reorderLabels, updateLabel, type Label } from '../api/labels';

/** A dataset's labels; nothing is requested until the id is known (no `/datasets/NaN/labels/`). */
export function useLabels(datasetId: number) {
  return useQuery({ queryKey: datasetKeys.labels(datasetId), queryFn: () => listLabels(datasetId), enabled: Number.isFinite(datasetId) });
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

export function useUpdateLabel(datasetId: number) {
  const refresh = useRefreshDataset(datasetId);
  return useMutation({
    mutationFn: ({ id, ...body }: { id: number; shortcut?: string; color?: string }) => updateLabel(datasetId, id, body),
    meta: { handlesOwnErrors: true },
    onSuccess: refresh,
  });
}

/** Reorders at once in the cache (a drag shows its result immediately), then saves; a refusal puts the old order back. */
export function useReorderLabels(datasetId: number) {
  const queryClient = useQueryClient();
  const key = datasetKeys.labels(datasetId);
  return useMutation({
    mutationFn: (ids: number[]) => reorderLabels(datasetId, ids),
    meta: { handlesOwnErrors: true },
    onMutate: async (ids: number[]) => {
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<Label[]>(key);
      if (previous) {
        const byId = new Map(previous.map((label) => [label.id, label]));
        queryClient.setQueryData<Label[]>(
          key,
          ids.flatMap((id, position) => {
            const label = byId.get(id);
            return label ? [{ ...label, position }] : [];
          }),
        );
      }
      return { previous };
    },
    onError: (_error, _ids, context) => {
      if (context?.previous) queryClient.setQueryData(key, context.previous);
    },
    onSuccess: (labels) => {
      queryClient.setQueryData(key, labels);
      void queryClient.invalidateQueries({ queryKey: datasetKeys.detail(datasetId) });
    },
  });
}
