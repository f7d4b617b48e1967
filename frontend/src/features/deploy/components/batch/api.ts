import { errorFromText, postFormWithProgress, readCookie, type Paginated } from '@/api/client';

/**
 * Batch predictions (API.md §1): a model version's predictions over a dataset version (a split or
 * all), a whole dataset or an uploaded file, run as a job. Typed here by hand from the binding
 * interface; calls go through `fetch` with the same conventions as `api` (cookies, CSRF, ApiError).
 */
export type BatchStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export type BatchFormat = 'jsonl' | 'csv' | 'parquet';
export type BatchSourceKind = 'dataset_version' | 'dataset' | 'upload';
export type BatchSplit = '' | 'train' | 'val' | 'test';
export const BATCH_FORMATS: BatchFormat[] = ['jsonl', 'csv', 'parquet'];

export type BatchResultRow = { id: number | null; name: string; prediction?: Record<string, unknown> | null; error?: string | null };

export type BatchPredictionSummary = {
  rows: number;
  predicted: number;
  errors: number;
  error_examples: BatchResultRow[];
  seconds: number;
  rows_per_s: number;
  metrics: Record<string, number> | null;
};

export type BatchPrediction = {
  id: number;
  workspace: number;
  project: number;
  model_version: number;
  model_version_name: string;
  template: string;
  deployment: number | null;
  job: number | null;
  status: BatchStatus;
  progress: { fraction: number | null; done: number | null; total: number | null; eta_s: number | null } | null;
  source: {
    kind: BatchSourceKind;
    dataset_version: number | null;
    dataset_version_name: string | null;
    split: string;
    dataset: number | null;
    dataset_name: string | null;
    upload_name: string;
    upload_size: number | null;
  };
  params: { top_k?: number; score_threshold?: number; max_detections?: number; formats?: BatchFormat[] };
  summary: BatchPredictionSummary | null;
  files: { format: BatchFormat; size_bytes: number; sha256: string; download_url: string }[];
  error: string;
  created_at: string;
  created_by: string | null;
  finished_at: string | null;
};

export type BatchFilters = { project?: number; model_version?: number; deployment?: number; status?: BatchStatus };

export type BatchCreate = {
  model_version: number;
  deployment?: number;
  top_k?: number;
  formats?: BatchFormat[];
} & (
  | { source: 'dataset_version'; dataset_version: number; split: BatchSplit }
  | { source: 'dataset'; dataset: number }
  | { source: 'upload'; file: File }
);

const BASE = '/api/v1/batch-predictions/';

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET') {
    const token = readCookie('csrftoken');
    if (token) headers['X-CSRFToken'] = token;
  }
  const origin = typeof window === 'undefined' ? '' : window.location.origin;
  const response = await globalThis.fetch(`${origin}${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw errorFromText(response.status, response.statusText, text);
  return (text ? JSON.parse(text) : null) as T;
}

export function listBatchPredictions(filters: BatchFilters) {
  const query = new URLSearchParams({ page_size: '50' });
  for (const [key, value] of Object.entries(filters)) if (value !== undefined) query.set(key, String(value));
  return call<Paginated<BatchPrediction>>('GET', `${BASE}?${query.toString()}`);
}

export function getBatchPrediction(id: number) {
  return call<BatchPrediction>('GET', `${BASE}${id}/`);
}

export function createBatchPrediction(body: BatchCreate): Promise<BatchPrediction> {
  if (body.source !== 'upload') return call<BatchPrediction>('POST', BASE, body);
  const form = new FormData();
  form.set('source', 'upload');
  form.set('model_version', String(body.model_version));
  if (body.deployment !== undefined) form.set('deployment', String(body.deployment));
  if (body.top_k !== undefined) form.set('top_k', String(body.top_k));
  for (const format of body.formats ?? []) form.append('formats', format);
  form.set('file', body.file);
  return postFormWithProgress<BatchPrediction>(BASE, form);
}

export function cancelBatchPrediction(id: number) {
  return call<BatchPrediction>('POST', `${BASE}${id}/cancel/`);
}

export function deleteBatchPrediction(id: number) {
  return call<null>('DELETE', `${BASE}${id}/`);
}

export function batchDownloadUrl(batch: Pick<BatchPrediction, 'id' | 'files'>, format: BatchFormat): string {
  return batch.files.find((file) => file.format === format)?.download_url || `${BASE}${batch.id}/download/?format=${format}`;
}

export function isLive(status: BatchStatus): boolean {
  return status === 'queued' || status === 'running';
}

/** The progress as a percent (null before the job counted its inputs) and the ETA in seconds. */
export function batchProgress(batch: Pick<BatchPrediction, 'status' | 'progress'>): { percent: number | null; eta: number | null } {
  if (batch.status === 'succeeded') return { percent: 100, eta: null };
  const progress = batch.progress;
  let fraction = progress?.fraction ?? null;
  if (fraction === null && progress?.done != null && progress.total) fraction = progress.done / progress.total;
  return {
    percent: fraction === null ? null : Math.round(Math.min(1, Math.max(0, fraction)) * 100),
    eta: progress?.eta_s ?? null,
  };
}

export const batchKeys = {
  all: ['batch-predictions'] as const,
  list: (filters: BatchFilters) => [...batchKeys.all, 'list', filters] as const,
};
