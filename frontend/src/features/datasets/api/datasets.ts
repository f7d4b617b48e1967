import { api, unwrap } from '@/api/client';
import type { components, paths } from '@/api/schema';

export type Dataset = components['schemas']['Dataset'];
export type DatasetCreateBody = NonNullable<paths['/api/v1/datasets/']['post']['requestBody']>['content']['application/json'];
export type DatasetStatistics = components['schemas']['DatasetStatistics'];
export type TaskType = components['schemas']['TaskTypeEnum'];

/** The task types in the order the create dialog offers them; `taskTypes.<value>` names each in the catalog. */
export const TASK_TYPES: TaskType[] = [
  'image_classification',
  'object_detection',
  'text_classification',
  'tabular_classification',
  'tabular_regression',
  'time_series_forecasting',
];

/** Text, tabular and time-series datasets import table files (with a column mapping) instead of images. */
export function isTableDataset(taskType: TaskType): boolean {
  return taskType !== 'image_classification' && taskType !== 'object_detection';
}

/** Forecasting datasets: series of observations on a time grid, versions split by time with a horizon. */
export function isForecastingDataset(taskType: TaskType | undefined): boolean {
  return taskType === 'time_series_forecasting';
}

/** The annotation formats an object-detection dataset imports (`auto`: detected from the archive) and exports. */
export const IMPORT_FORMATS = ['auto', 'coco', 'voc', 'yolo', 'label_studio', 'images'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
export const EXPORT_FORMATS = ['coco', 'voc', 'yolo'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export type DatasetProfile = components['schemas']['DatasetProfile'];

export function getProfile(id: number) {
  return unwrap(api.GET('/api/v1/datasets/{id}/profile/', { params: { path: { id } } }));
}

const LIST_PAGE_SIZE = 100;

export function listDatasets(projectId: number) {
  return unwrap(api.GET('/api/v1/datasets/', { params: { query: { project: projectId, page_size: LIST_PAGE_SIZE } } }));
}

export function getDataset(id: number) {
  return unwrap(api.GET('/api/v1/datasets/{id}/', { params: { path: { id } } }));
}

export function createDataset(body: DatasetCreateBody) {
  return unwrap(api.POST('/api/v1/datasets/', { body }));
}

export function getStatistics(id: number) {
  return unwrap(api.GET('/api/v1/datasets/{id}/statistics/', { params: { path: { id } } }));
}

/**
 * The export zip (folder per class + manifest.csv; for object detection the images with COCO, VOC or
 * YOLO annotations by `format`); a plain link, so the browser downloads it.
 */
export function exportUrl(id: number, versionId?: number | null, format?: ExportFormat): string {
  const query = new URLSearchParams();
  if (versionId) query.set('version', String(versionId));
  if (format) query.set('format', format);
  const text = query.toString();
  return `/api/v1/datasets/${id}/export/${text ? `?${text}` : ''}`;
}
