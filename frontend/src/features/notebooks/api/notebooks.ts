import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type NotebookStatus = components['schemas']['NotebookStatusEnum'];
export type Notebook = components['schemas']['Notebook'];
export type NotebookCreateBody = components['schemas']['NotebookCreateRequest'];

export const notebookKeys = {
  all: ['notebooks'] as const,
  project: (projectId: number) => [...notebookKeys.all, 'project', projectId] as const,
};

/** A notebook whose server is on its way up or down: worth polling. */
export function isTransitional(status: NotebookStatus | undefined): boolean {
  return status === 'starting' || status === 'stopping';
}

/** A notebook that still holds (or is about to hold) a server. */
export function isLive(status: NotebookStatus | undefined): boolean {
  return status === 'starting' || status === 'running' || status === 'stopping';
}

/** The caller's newest notebook in the project (the list holds only the caller's own), or null. */
export async function currentNotebook(projectId: number): Promise<Notebook | null> {
  const page = await unwrap(api.GET('/api/v1/notebooks/', { params: { query: { project: projectId, page_size: 20 } } }));
  return page.results[0] ?? null;
}

export function startNotebook(body: NotebookCreateBody) {
  return unwrap(api.POST('/api/v1/notebooks/', { body }));
}

export function stopNotebook(id: number) {
  return unwrap(api.POST('/api/v1/notebooks/{id}/stop/', { params: { path: { id } } }));
}
