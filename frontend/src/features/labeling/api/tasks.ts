import { api, unwrap } from '@/api/client';
import type { paths } from '@/api/schema';

type TaskPage = paths['/api/v1/labeling-tasks/']['get']['responses'][200]['content']['application/json'];
/** A labeling task with its progress (owners and editors see every task of a dataset; annotators their own). */
export type LabelingTask = TaskPage['results'][number];
export type LabelingTaskCreateBody = NonNullable<paths['/api/v1/labeling-tasks/']['post']['requestBody']>['content']['application/json'];
export type TaskSelection = LabelingTaskCreateBody['selection'];
type ItemPage = paths['/api/v1/labeling-tasks/{id}/items/']['get']['responses'][200]['content']['application/json'];
/** One sample of a task with every annotator's answer and its review. */
export type LabelingItem = ItemPage['results'][number];
export type ReviewBody = NonNullable<paths['/api/v1/labeling-tasks/{id}/review/']['post']['requestBody']>['content']['application/json'];
export type AgreementReport = paths['/api/v1/labeling-tasks/{id}/agreement/']['get']['responses'][200]['content']['application/json'];
export type ItemReview = 'pending' | 'accepted' | 'rejected';

/** A task's items are listed a page at a time; the review page shows this many. */
export const ITEMS_PAGE_SIZE = 50;
const TASKS_PAGE_SIZE = 100;

export const taskKeys = {
  all: ['labeling-tasks'] as const,
  list: (dataset: number | null) => [...taskKeys.all, 'list', { dataset }] as const,
  detail: (id: number) => [...taskKeys.all, 'detail', id] as const,
  items: (id: number, review: ItemReview, page: number) => [...taskKeys.detail(id), 'items', { review, page }] as const,
  agreement: (id: number) => [...taskKeys.detail(id), 'agreement'] as const,
};

export function listTasks(dataset: number | null) {
  return unwrap(
    api.GET('/api/v1/labeling-tasks/', {
      params: { query: { page_size: TASKS_PAGE_SIZE, ...(dataset === null ? {} : { dataset }) } },
    }),
  );
}

export function getTask(id: number) {
  return unwrap(api.GET('/api/v1/labeling-tasks/{id}/', { params: { path: { id } } }));
}

export function createTask(body: LabelingTaskCreateBody) {
  return unwrap(api.POST('/api/v1/labeling-tasks/', { body }));
}

export function closeTask(id: number) {
  return unwrap(api.POST('/api/v1/labeling-tasks/{id}/close/', { params: { path: { id } } }));
}

export function getAgreement(id: number) {
  return unwrap(api.GET('/api/v1/labeling-tasks/{id}/agreement/', { params: { path: { id } } }));
}

export function listItems(id: number, review: ItemReview, page: number) {
  return unwrap(
    api.GET('/api/v1/labeling-tasks/{id}/items/', {
      params: {
        path: { id },
        query: { review, submitted: review === 'pending' ? true : undefined, page: page > 1 ? page : undefined, page_size: ITEMS_PAGE_SIZE },
      },
    }),
  );
}

export function reviewItems(id: number, body: ReviewBody) {
  return unwrap(api.POST('/api/v1/labeling-tasks/{id}/review/', { params: { path: { id } }, body }));
}
