import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type WorkspaceLimits = components['schemas']['WorkspaceLimits'];
export type WorkspaceLimitsUpdate = components['schemas']['WorkspaceLimitsUpdateRequest'];

export const limitsKey = (workspaceId: number) => ['workspaces', 'detail', workspaceId, 'limits'] as const;

export function getLimits(workspaceId: number) {
  return unwrap(api.GET('/api/v1/workspaces/{id}/limits/', { params: { path: { id: workspaceId } } }));
}

export function updateLimits(workspaceId: number, body: WorkspaceLimitsUpdate) {
  return unwrap(api.PUT('/api/v1/workspaces/{id}/limits/', { params: { path: { id: workspaceId } }, body }));
}

export type WorkspaceLimitsRow = components['schemas']['WorkspaceLimitsRow'];

export const allLimitsKey = (search: string, page: number) => ['workspace-limits', 'list', search, page] as const;

/** Every workspace's limits and use (administrators), 50 a page, by name. */
export function listAllLimits(search: string, page: number) {
  return unwrap(api.GET('/api/v1/workspace-limits/', { params: { query: { search: search || undefined, page } } }));
}
