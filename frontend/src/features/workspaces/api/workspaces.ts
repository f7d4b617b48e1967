import { api, unwrap } from '@/api/client';
import type { paths } from '@/api/schema';

type WorkspacePage = paths['/api/v1/workspaces/']['get']['responses'][200]['content']['application/json'];
export type Workspace = WorkspacePage['results'][number];
export type WorkspaceCreateBody = NonNullable<paths['/api/v1/workspaces/']['post']['requestBody']>['content']['application/json'];
export type WorkspaceRole = 'owner' | 'editor' | 'viewer' | 'annotator';

export const workspaceKeys = {
  all: ['workspaces'] as const,
  list: () => [...workspaceKeys.all, 'list'] as const,
  detail: (id: number) => [...workspaceKeys.all, 'detail', id] as const,
  members: (id: number) => [...workspaceKeys.all, 'detail', id, 'members'] as const,
};

/** Lists are capped at the first 100 entries; a workspace list longer than that is not a UI concern yet. */
export const LIST_PAGE_SIZE = 100;

export function listWorkspaces() {
  return unwrap(api.GET('/api/v1/workspaces/', { params: { query: { page_size: LIST_PAGE_SIZE } } }));
}

export function getWorkspace(id: number) {
  return unwrap(api.GET('/api/v1/workspaces/{id}/', { params: { path: { id } } }));
}

export function createWorkspace(body: WorkspaceCreateBody) {
  return unwrap(api.POST('/api/v1/workspaces/', { body }));
}
