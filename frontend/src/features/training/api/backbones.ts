import { api, postFormWithProgress, unwrap, type UploadProgress } from '@/api/client';
import type { components } from '@/api/schema';

export type Backbone = components['schemas']['Backbone'];

export function listBackbones(projectId: number) {
  return unwrap(api.GET('/api/v1/backbones/', { params: { query: { project: projectId, page_size: 100 } } }));
}

/** Uploads a state_dict file; the answer is the backbone with status `pending` until a worker has read it. */
export function uploadBackbone(
  { project, file, name }: { project: number; file: File; name: string },
  onProgress?: (progress: UploadProgress) => void,
) {
  const form = new FormData();
  form.append('project', String(project));
  form.append('file', file, file.name);
  if (name.trim()) form.append('name', name.trim());
  return postFormWithProgress<Backbone>('/api/v1/backbones/', form, { onProgress });
}

export function deleteBackbone(id: number) {
  return unwrap(api.DELETE('/api/v1/backbones/{id}/', { params: { path: { id } } }));
}

/** Whether a checked backbone can initialise `model` (the server refuses the run otherwise). */
export function backboneFits(backbone: Pick<Backbone, 'status' | 'summary'>, model: string | null): boolean {
  return backbone.status === 'valid' && model !== null && (backbone.summary?.fits ?? []).includes(model);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

/** 11689512 -> "11.7M"; 137304 -> "137K". */
export function formatCount(value: number): string {
  if (value >= 1e9) return `${(value / 1e9).toFixed(1)}B`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e3) return `${Math.round(value / 1e3)}K`;
  return String(value);
}
