import { api, postFormWithProgress, unwrap, type UploadProgress } from '@/api/client';
import type { components } from '@/api/schema';
import type { TimeSeriesMapping } from './timeSeries';

export type ImportBatch = components['schemas']['ImportBatch'];
export type ImportProblem = components['schemas']['ImportProblem'];
/** An import as lists show it: the counts, without the per-file problems. */
export type ImportBatchSummary = components['schemas']['ImportBatchSummary'];

const ARCHIVE_PATTERN = /\.(zip|tar|tgz|tar\.gz|tbz2|tar\.bz2|txz|tar\.xz)$/i;

export function isArchive(file: File): boolean {
  return ARCHIVE_PATTERN.test(file.name);
}

/**
 * An archive always imports as a background job, so its progress can be followed. Object detection:
 * `format` names the annotation format (coco, voc, yolo, label_studio, images; auto or absent: detected).
 */
export function uploadArchive(
  datasetId: number,
  archive: File,
  label: string,
  onProgress?: (progress: UploadProgress) => void,
  format?: string,
) {
  const form = new FormData();
  form.append('archive', archive, archive.name);
  form.append('background', 'true');
  if (label.trim()) form.append('label', label.trim());
  if (format && format !== 'auto') form.append('format', format);
  return postFormWithProgress<ImportBatch>(`/api/v1/datasets/${datasetId}/imports/`, form, { onProgress });
}

export function uploadImages(datasetId: number, files: File[], label: string, onProgress?: (progress: UploadProgress) => void) {
  const form = new FormData();
  for (const file of files) form.append('files', file, file.name);
  if (label.trim()) form.append('label', label.trim());
  return postFormWithProgress<ImportBatch>(`/api/v1/datasets/${datasetId}/imports/`, form, { onProgress });
}

// The server refuses request bodies over its limit (10 MiB by default), so images go in batches.
export const IMAGE_BATCH_BYTES = 8 * 1024 * 1024;
export const IMAGE_BATCH_FILES = 200;

/** Image files grouped into uploads under the request size limit, in their order. */
export function batchFiles(files: File[], maxBytes = IMAGE_BATCH_BYTES, maxFiles = IMAGE_BATCH_FILES): File[][] {
  const batches: File[][] = [];
  let current: File[] = [];
  let bytes = 0;
  for (const file of files) {
    if (current.length > 0 && (bytes + file.size > maxBytes || current.length >= maxFiles)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += file.size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export function getImport(datasetId: number, id: number) {
  return unwrap(api.GET('/api/v1/datasets/{dataset_id}/imports/{id}/', { params: { path: { dataset_id: datasetId, id } } }));
}

export function listImports(datasetId: number) {
  return unwrap(api.GET('/api/v1/datasets/{dataset_id}/imports/', { params: { path: { dataset_id: datasetId }, query: { page_size: 20 } } }));
}

export function isImportActive(batch: Pick<ImportBatch, 'status'>): boolean {
  return batch.status === 'queued' || batch.status === 'running';
}

/** 0..1 from the background job's progress, or null when it has not said. */
export function importFraction(batch: Pick<ImportBatch, 'status' | 'progress'>): number | null {
  if (batch.status === 'succeeded' || batch.status === 'failed') return 1;
  const progress = batch.progress;
  if (typeof progress.fraction === 'number') return Math.max(0, Math.min(1, progress.fraction));
  if (typeof progress.processed === 'number' && typeof progress.total === 'number' && progress.total > 0) {
    return Math.max(0, Math.min(1, progress.processed / progress.total));
  }
  return null;
}

export type TablePreview = components['schemas']['TablePreview'];
/** The column mapping of a table import: text datasets name text/label columns, tabular ones the target. */
export type TableMapping = { text_column?: string; label_column?: string; target_column?: string };
/** How the file is read; empty (or absent) fields are detected by the server, and the preview says what it used. */
export type TableReading = { encoding?: string; delimiter?: string; decimal?: string; sheet?: string };
const TABLE_PATTERN = /\.(csv|tsv|tab|txt|jsonl|ndjson|xlsx|xlsm|parquet|pq)$/i;

export function isTableFile(file: File): boolean {
  return TABLE_PATTERN.test(file.name);
}

/**
 * The column mapping step: columns with inferred types, the first rows, a suggested mapping. A list
 * (a forecasting import's target columns, covariates) is sent as one field per item.
 */
function tableForm(file: File, fields: Record<string, string | string[] | undefined>): FormData {
  const form = new FormData();
  form.append('file', file, file.name);
  for (const [key, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      // A delimiter may be a tab: only the other fields are trimmed.
      const sent = key === 'delimiter' ? item : item?.trim();
      if (sent) form.append(key, sent);
    }
  }
  return form;
}

export function previewTable(datasetId: number, file: File, reading: TableReading = {}) {
  return postFormWithProgress<TablePreview>(`/api/v1/datasets/${datasetId}/imports/preview/`, tableForm(file, reading), {});
}

export function uploadTable(
  datasetId: number,
  file: File,
  fields: (TableMapping | TimeSeriesMapping) & TableReading,
  onProgress?: (progress: UploadProgress) => void,
) {
  return postFormWithProgress<ImportBatch>(`/api/v1/datasets/${datasetId}/imports/`, tableForm(file, fields), { onProgress });
}

/** The encodings a refused preview names (`bad_encoding` with `details.candidates`), or []. */
export function encodingCandidates(error: unknown): string[] {
  const details = (error as { code?: string; details?: { candidates?: unknown } } | null)?.details;
  return (error as { code?: string } | null)?.code === 'bad_encoding' && Array.isArray(details?.candidates)
    ? details.candidates.map(String)
    : [];
}
