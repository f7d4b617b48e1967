import { api, unwrap } from '@/api/client';
import type { paths } from '@/api/schema';
import { LIST_PAGE_SIZE, type WorkspaceRole } from './workspaces';

type InvitationPage = paths['/api/v1/invitations/']['get']['responses'][200]['content']['application/json'];
export type Invitation = InvitationPage['results'][number];

type WorkspaceIdParam = paths['/api/v1/workspaces/{workspace_id}/invitations/']['get']['parameters']['path']['workspace_id'];
function workspacePath(workspaceId: number) {
  return { workspace_id: workspaceId as unknown as WorkspaceIdParam };
}

export const invitationKeys = {
  mine: ['invitations', 'mine'] as const,
  of: (workspaceId: number) => ['workspaces', 'detail', workspaceId, 'invitations'] as const,
};

/** The invitations addressed to the signed-in user that wait for an answer. */
export function listMyInvitations() {
  return unwrap(api.GET('/api/v1/invitations/', { params: { query: { page_size: LIST_PAGE_SIZE } } }));
}

export function acceptInvitation(id: number) {
  return unwrap(api.POST('/api/v1/invitations/{id}/accept/', { params: { path: { id } } }));
}

export function declineInvitation(id: number) {
  return unwrap(api.POST('/api/v1/invitations/{id}/decline/', { params: { path: { id } } }));
}

/** A workspace's pending invitations. */
export function listWorkspaceInvitations(workspaceId: number) {
  return unwrap(
    api.GET('/api/v1/workspaces/{workspace_id}/invitations/', {
      params: { path: workspacePath(workspaceId), query: { page_size: LIST_PAGE_SIZE } },
    }),
  );
}

export function inviteUser(workspaceId: number, body: { username: string; role: WorkspaceRole }) {
  return unwrap(
    api.POST('/api/v1/workspaces/{workspace_id}/invitations/', { params: { path: workspacePath(workspaceId) }, body }),
  );
}

export function revokeInvitation(workspaceId: number, id: number) {
  return unwrap(
    api.POST('/api/v1/workspaces/{workspace_id}/invitations/{id}/revoke/', {
      params: { path: { ...workspacePath(workspaceId), id } },
    }),
  );
}
