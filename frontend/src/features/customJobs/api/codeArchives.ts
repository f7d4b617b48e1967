import { api, postFormWithProgress, unwrap, type UploadProgress } from '@/api/client';
import type { CodeArchive, CustomJobCreateBody } from './types';

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
  return unwrap(api.GET('/api/v1/code-archives/', { params: { query: { project: projectId, page_size: CODE_ARCHIVES_PAGE_SIZE } } }));
}

export function getCodeArchive(id: number) {
  return unwrap(api.GET('/api/v1/code-archives/{id}/', { params: { path: { id } } }));
}

export function getCodeFile(id: number, path: string) {
  return unwrap(api.GET('/api/v1/code-archives/{id}/files/', { params: { path: { id }, query: { path } } }));
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
  // Multipart with upload progress (XMLHttpRequest), as dataset imports send theirs.
  return postFormWithProgress<CodeArchive>('/api/v1/code-archives/', form, { onProgress });
}

/** The created job (a `training.custom` job, as GET /jobs/{id}/ serves it). */
export function createCustomJob(body: CustomJobCreateBody) {
  return unwrap(api.POST('/api/v1/custom-jobs/', { body }));
}

/** A short form of a sha256 for tables: its first 12 hex digits. */
export function shortSha(sha256: string): string {
  return sha256.slice(0, 12);
}
