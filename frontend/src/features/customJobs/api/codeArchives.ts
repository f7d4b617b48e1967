import { errorFromText, postFormWithProgress, readCookie, type Paginated, type UploadProgress } from '@/api/client';
import type { CodeArchive, CodeFileText, CustomJobCreateBody } from './types';

// The custom-code routes are not in the generated client yet; these calls follow the same
// conventions as `api` (same-origin cookies, the CSRF header, failures thrown as ApiError).
// TODO(lead): generated type — move to `api.GET/POST` once `make api-client` has run.
async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const token = method === 'POST' ? readCookie('csrftoken') : null;
  if (token) headers['X-CSRFToken'] = token;
  const base = typeof window === 'undefined' ? '' : window.location.origin;
  const response = await globalThis.fetch(new Request(`${base}${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  }));
  const text = await response.text();
  if (!response.ok) throw errorFromText(response.status, response.statusText, text);
  return JSON.parse(text) as T;
}

export const CODE_ARCHIVES_PAGE_SIZE = 50;

export const customJobKeys = {
  all: ['code-archives'] as const,
  list: (projectId: number) => [...customJobKeys.all, 'list', { project: projectId }] as const,
  detail: (id: number) => [...customJobKeys.all, 'detail', id] as const,
  file: (id: number, path: string) => [...customJobKeys.detail(id), 'file', path] as const,
};

/** The file types the Code tab takes: one Python script, a zip of a project, a Jupyter notebook. */
export const CODE_ACCEPT = '.py,.zip,.ipynb';

export function acceptsCodeFile(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.endsWith('.py') || lower.endsWith('.zip') || lower.endsWith('.ipynb');
}

export function listCodeArchives(projectId: number) {
  return request<Paginated<CodeArchive>>('GET', `/api/v1/code-archives/?project=${projectId}&page_size=${CODE_ARCHIVES_PAGE_SIZE}`);
}

export function getCodeArchive(id: number) {
  return request<CodeArchive>('GET', `/api/v1/code-archives/${id}/`);
}

export function getCodeFile(id: number, path: string) {
  return request<CodeFileText>('GET', `/api/v1/code-archives/${id}/files/?path=${encodeURIComponent(path)}`);
}

export function uploadCodeArchive(
  { project, file, name, entryPoint }: { project: number; file: File; name?: string; entryPoint?: string },
  onProgress?: (progress: UploadProgress) => void,
) {
  const form = new FormData();
  form.append('project', String(project));
  form.append('file', file, file.name);
  if (name?.trim()) form.append('name', name.trim());
  if (entryPoint?.trim()) form.append('entry_point', entryPoint.trim());
  return postFormWithProgress<CodeArchive>('/api/v1/code-archives/', form, { onProgress });
}

/** The created job (a `training.custom` job, as GET /jobs/{id}/ serves it). */
export function createCustomJob(body: CustomJobCreateBody) {
  return request<{ id: number; kind: string; status: string }>('POST', '/api/v1/custom-jobs/', body);
}

/** A short form of a sha256 for tables: its first 12 hex digits. */
export function shortSha(sha256: string): string {
  return sha256.slice(0, 12);
}
