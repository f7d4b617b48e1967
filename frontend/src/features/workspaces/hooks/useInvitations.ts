import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  acceptInvitation,
  declineInvitation,
  invitationKeys,
  inviteUser,
  listMyInvitations,
  listWorkspaceInvitations,
  revokeInvitation,
} from '../api/invitations';
import { workspaceKeys, type WorkspaceRole } from '../api/workspaces';

export function useMyInvitations() {
  return useQuery({ queryKey: invitationKeys.mine, queryFn: listMyInvitations });
}

export function useWorkspaceInvitations(workspaceId: number, enabled = true) {
  return useQuery({
    queryKey: invitationKeys.of(workspaceId),
    queryFn: () => listWorkspaceInvitations(workspaceId),
    enabled,
  });
}

export function useInviteUser(workspaceId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { username: string; role: WorkspaceRole }) => inviteUser(workspaceId, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: invitationKeys.of(workspaceId) }),
  });
}

export function useRevokeInvitation(workspaceId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => revokeInvitation(workspaceId, id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: invitationKeys.of(workspaceId) }),
  });
}

/** Accepting adds a workspace to the list (and a member to its count). */
export function useAnswerInvitation() {
  const queryClient = useQueryClient();
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: invitationKeys.mine }),
      queryClient.invalidateQueries({ queryKey: workspaceKeys.all }),
    ]);
  const accept = useMutation({ mutationFn: acceptInvitation, onSettled: refresh });
  const decline = useMutation({ mutationFn: declineInvitation, onSettled: refresh });
  return { accept, decline };
}
