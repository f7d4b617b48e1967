import { api, unwrap } from '@/api/client';
import type { components, paths } from '@/api/schema';

export type Dataset = components['schemas']['Dataset'];
export type DatasetCreateBody = NonNullable<paths['/api/v1/datasets/']['post']['requestBody']>['content']['application/json'];
export type DatasetStatistics = components['schemas']['DatasetStatistics'];
export type TaskType = components['schemas']['TaskTypeEnum'];

/** The task types in the order the create dialog offers them; `taskTypes.<value>` names each in the catalog. */
export const TASK_TYPES: TaskType[] = ['image_classification', 'text_classification', 'tabular_classification', 'tabular_regression'];

/** Text and tabular datasets import table files (with a column mapping) instead of images. */
export function isTableDataset(taskType: TaskType): boolean {
  return taskType !== 'image_classification';
}

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

/** The export zip (folder per class + manifest.csv); a plain link, so the browser downloads it. */
export function exportUrl(id: number, versionId?: number | null): string {
  return `/api/v1/datasets/${id}/export/${versionId ? `?version=${versionId}` : ''}`;
}
