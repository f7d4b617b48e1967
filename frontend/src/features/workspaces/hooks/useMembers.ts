import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { changeMemberRole, listMembers, removeMember } from '../api/members';
import { workspaceKeys, type WorkspaceRole } from '../api/workspaces';

export function useMembers(workspaceId: number) {
  return useQuery({ queryKey: workspaceKeys.members(workspaceId), queryFn: () => listMembers(workspaceId), enabled: Number.isFinite(workspaceId) });
}

/** Members and the workspace's member_count (and the caller's own role) change together. */
function useInvalidateWorkspace(workspaceId: number) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: workspaceKeys.detail(workspaceId) }),
      queryClient.invalidateQueries({ queryKey: workspaceKeys.list() }),
    ]);
}

export function useChangeMemberRole(workspaceId: number) {
  const invalidate = useInvalidateWorkspace(workspaceId);
  return useMutation({
    mutationFn: ({ membershipId, role }: { membershipId: number; role: WorkspaceRole }) =>
      changeMemberRole(workspaceId, membershipId, role),
    onSettled: invalidate,
  });
}

export function useRemoveMember(workspaceId: number) {
  const invalidate = useInvalidateWorkspace(workspaceId);
  return useMutation({
    mutationFn: (membershipId: number) => removeMember(workspaceId, membershipId),
    onSuccess: invalidate,
  });
}
