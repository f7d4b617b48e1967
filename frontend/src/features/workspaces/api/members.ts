import { api, unwrap } from '@/api/client';
import type { paths } from '@/api/schema';
import { LIST_PAGE_SIZE, type WorkspaceRole } from './workspaces';

type MembershipPage = paths['/api/v1/workspaces/{workspace_id}/members/']['get']['responses'][200]['content']['application/json'];
export type Membership = MembershipPage['results'][number];

type WorkspaceIdParam = paths['/api/v1/workspaces/{workspace_id}/members/']['get']['parameters']['path']['workspace_id'];
/**
 * The members route's `workspace_id` comes from a regex URL kwarg, which the schema may type as a
 * string or an integer; both serialize to the same URL segment.
 */
function workspacePath(workspaceId: number) {
  return { workspace_id: workspaceId as unknown as WorkspaceIdParam };
}

export function listMembers(workspaceId: number) {
  return unwrap(
    api.GET('/api/v1/workspaces/{workspace_id}/members/', {
      params: { path: workspacePath(workspaceId), query: { page_size: LIST_PAGE_SIZE } },
    }),
  );
}

export function changeMemberRole(workspaceId: number, membershipId: number, role: WorkspaceRole) {
  return unwrap(
    api.PATCH('/api/v1/workspaces/{workspace_id}/members/{id}/', {
      params: { path: { ...workspacePath(workspaceId), id: membershipId } },
      body: { role },
    }),
  );
}

export async function removeMember(workspaceId: number, membershipId: number) {
  await api.DELETE('/api/v1/workspaces/{workspace_id}/members/{id}/', {
    params: { path: { ...workspacePath(workspaceId), id: membershipId } },
  });
}
