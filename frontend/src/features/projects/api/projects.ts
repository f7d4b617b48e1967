import { api, unwrap } from '@/api/client';
import type { paths } from '@/api/schema';

type ProjectPage = paths['/api/v1/projects/']['get']['responses'][200]['content']['application/json'];
export type Project = ProjectPage['results'][number];
export type ProjectCreateBody = NonNullable<paths['/api/v1/projects/']['post']['requestBody']>['content']['application/json'];

export const projectKeys = {
  all: ['projects'] as const,
  list: (workspaceId: number) => [...projectKeys.all, 'list', { workspace: workspaceId }] as const,
  detail: (id: number) => [...projectKeys.all, 'detail', id] as const,
};

const LIST_PAGE_SIZE = 100;

export function listProjects(workspaceId: number) {
  return unwrap(api.GET('/api/v1/projects/', { params: { query: { workspace: workspaceId, page_size: LIST_PAGE_SIZE } } }));
}

export function getProject(id: number) {
  return unwrap(api.GET('/api/v1/projects/{id}/', { params: { path: { id } } }));
}

export function createProject(body: ProjectCreateBody) {
  return unwrap(api.POST('/api/v1/projects/', { body }));
}
