import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type Label = components['schemas']['Label'];
/** What a delete or merge changes; `dry_run` answers it without changing anything. */
export type LabelChange = components['schemas']['LabelChange'];

export async function listLabels(datasetId: number): Promise<Label[]> {
  const labels: Label[] = [];
  for (let page = 1; page <= 20; page += 1) {
    const data = await unwrap(
      api.GET('/api/v1/datasets/{dataset_id}/labels/', {
        params: { path: { dataset_id: datasetId }, query: { page: page > 1 ? page : undefined, page_size: 500 } },
      }),
    );
    labels.push(...data.results);
    if (!data.next) break;
  }
  return labels;
}

export function createLabel(datasetId: number, name: string) {
  return unwrap(api.POST('/api/v1/datasets/{dataset_id}/labels/', { params: { path: { dataset_id: datasetId } }, body: { name } }));
}

export function renameLabel(datasetId: number, id: number, name: string) {
  return unwrap(
    api.PATCH('/api/v1/datasets/{dataset_id}/labels/{id}/', { params: { path: { dataset_id: datasetId, id } }, body: { name } }),
  );
}

/** Changes a label's key (`''`: back to the default key of its place) or colour. */
export function updateLabel(datasetId: number, id: number, body: { shortcut?: string; color?: string }) {
  return unwrap(api.PATCH('/api/v1/datasets/{dataset_id}/labels/{id}/', { params: { path: { dataset_id: datasetId, id } }, body }));
}

/** Puts the labels in a new order: every label id once. Answers the labels in that order. */
export function reorderLabels(datasetId: number, labelIds: number[]) {
  return unwrap(
    api.POST('/api/v1/datasets/{dataset_id}/labels/reorder/', { params: { path: { dataset_id: datasetId } }, body: { label_ids: labelIds } }),
  );
}

export function mergeLabel(datasetId: number, id: number, into: number, dryRun: boolean) {
  return unwrap(
    api.POST('/api/v1/datasets/{dataset_id}/labels/{id}/merge/', {
      params: { path: { dataset_id: datasetId, id } },
      body: { into, dry_run: dryRun },
    }),
  );
}

/** Deletes a label (its samples become unlabeled), or with `dryRun` only counts them. */
export function deleteLabel(datasetId: number, id: number, dryRun: boolean) {
  return unwrap(api.DELETE('/api/v1/datasets/{dataset_id}/labels/{id}/', { params: { path: { dataset_id: datasetId, id }, query: { dry_run: dryRun } } }));
}
