import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { allLimitsKey, getLimits, limitsKey, listAllLimits, updateLimits, type WorkspaceLimitsUpdate } from '../api/limits';

export function useWorkspaceLimits(workspaceId: number) {
  return useQuery({ queryKey: limitsKey(workspaceId), queryFn: () => getLimits(workspaceId), refetchInterval: 10_000 });
}

/** Every workspace's limits and use, for administrators (the Users page). */
export function useAllWorkspaceLimits(search: string, page: number) {
  return useQuery({
    queryKey: allLimitsKey(search, page),
    queryFn: () => listAllLimits(search, page),
    placeholderData: keepPreviousData,
    refetchInterval: 10_000,
  });
}

export function useUpdateWorkspaceLimits(workspaceId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: WorkspaceLimitsUpdate) => updateLimits(workspaceId, body),
    onSuccess: (data) => {
      queryClient.setQueryData(limitsKey(workspaceId), data);
      void queryClient.invalidateQueries({ queryKey: ['workspace-limits', 'list'] });
    },
  });
}
