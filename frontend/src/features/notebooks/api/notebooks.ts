import createClient from 'openapi-fetch';
import { csrfMiddleware, errorMiddleware, unwrap } from '@/api/client';

// TODO(lead): generated type — these mirror API.md §3 (notebooks) until `make api-client` adds the
// notebooks routes to '@/api/schema'; then `notebooksApi` becomes the shared `api` and these types
// come from `paths['/api/v1/notebooks/']`.
export type NotebookStatus = 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

export type NotebookLimits = { wall_time_s?: number; memory_mb?: number; cpus?: number };

export type Notebook = {
  id: number;
  project: number;
  status: NotebookStatus;
  url: string;
  /** The url with the notebook's secret; only its owner gets one. */
  open_url?: string | null;
  idle_timeout_s: number;
  limits: NotebookLimits;
  started_at: string | null;
  last_activity_at: string | null;
  stopped_at: string | null;
  stop_reason: string;
  job: number | null;
  created_at: string;
};

export type NotebookCreateBody = { project: number; idle_timeout_s?: number; limits?: NotebookLimits };

type NotebookPage = { count: number; next: string | null; previous: string | null; results: Notebook[] };

type JsonContent<T> = { content: { 'application/json': T } };

interface NotebookPaths {
  '/api/v1/notebooks/': {
    get: {
      parameters: { query: { project: number; page_size?: number } };
      responses: { 200: JsonContent<NotebookPage> };
    };
    post: {
      requestBody: JsonContent<NotebookCreateBody>;
      responses: { 200: JsonContent<Notebook>; 201: JsonContent<Notebook> };
    };
  };
  '/api/v1/notebooks/{id}/': {
    get: { parameters: { path: { id: number } }; responses: { 200: JsonContent<Notebook> } };
  };
  '/api/v1/notebooks/{id}/stop/': {
    post: { parameters: { path: { id: number } }; responses: { 200: JsonContent<Notebook> } };
  };
}

const notebooksApi = createClient<NotebookPaths>({
  baseUrl: typeof window === 'undefined' ? '' : window.location.origin,
  credentials: 'same-origin',
  fetch: (request: Request) => globalThis.fetch(request),
});
notebooksApi.use(csrfMiddleware, errorMiddleware);

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
  const page = await unwrap(notebooksApi.GET('/api/v1/notebooks/', { params: { query: { project: projectId, page_size: 20 } } }));
  return page.results[0] ?? null;
}

export function startNotebook(body: NotebookCreateBody) {
  return unwrap(notebooksApi.POST('/api/v1/notebooks/', { body }));
}

export function stopNotebook(id: number) {
  return unwrap(notebooksApi.POST('/api/v1/notebooks/{id}/stop/', { params: { path: { id } } }));
}
