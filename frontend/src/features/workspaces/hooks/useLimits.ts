import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getLimits, limitsKey, updateLimits, type WorkspaceLimitsUpdate } from '../api/limits';

export function useWorkspaceLimits(workspaceId: number) {
  return useQuery({ queryKey: limitsKey(workspaceId), queryFn: () => getLimits(workspaceId), refetchInterval: 10_000 });
}

export function useUpdateWorkspaceLimits(workspaceId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: WorkspaceLimitsUpdate) => updateLimits(workspaceId, body),
    onSuccess: (data) => queryClient.setQueryData(limitsKey(workspaceId), data),
  });
}
