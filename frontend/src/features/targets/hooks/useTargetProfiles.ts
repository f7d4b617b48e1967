import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createTargetProfile, deleteTargetProfile, listTargetProfiles, targetKeys, updateTargetProfile, type TargetProfileBody } from '../api/targets';

/** Builtins and the workspace's own profiles (builtins alone when no workspace is known). */
export function useTargetProfiles(workspace: number | null, enabled = true) {
  return useQuery({ queryKey: targetKeys.list(workspace), queryFn: () => listTargetProfiles(workspace), enabled, staleTime: 30_000 });
}

export function useSaveTargetProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number | null; body: TargetProfileBody }) => (id === null ? createTargetProfile(body) : updateTargetProfile(id, body)),
    meta: { handlesOwnErrors: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: targetKeys.all }),
  });
}

export function useDeleteTargetProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteTargetProfile,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: targetKeys.all }),
  });
}
