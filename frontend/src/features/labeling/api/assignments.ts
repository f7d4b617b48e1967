import { api, unwrap } from '@/api/client';
import type { paths } from '@/api/schema';

type AssignmentPage = paths['/api/v1/labeling-assignments/']['get']['responses'][200]['content']['application/json'];
/** One sample to label in the caller's queue, with what it takes to label it (the sample, the labels). */
export type Assignment = AssignmentPage['results'][number];
export type AssignmentDetail = paths['/api/v1/labeling-assignments/{id}/']['get']['responses'][200]['content']['application/json'];
export type SubmitBody = NonNullable<paths['/api/v1/labeling-assignments/{id}/submit/']['post']['requestBody']>['content']['application/json'];
export type AssignmentStatus = 'pending' | 'submitted' | 'rejected' | 'accepted';

/** The queue is read whole: a person's share of a task stays in the hundreds. */
const QUEUE_PAGE_SIZE = 500;

export const assignmentKeys = {
  all: ['labeling-assignments'] as const,
  list: (task: number | null) => [...assignmentKeys.all, 'list', { task }] as const,
  detail: (id: number) => [...assignmentKeys.all, 'detail', id] as const,
};

export function listAssignments(task: number | null) {
  return unwrap(
    api.GET('/api/v1/labeling-assignments/', {
      params: { query: { page_size: QUEUE_PAGE_SIZE, ...(task === null ? {} : { task }) } },
    }),
  );
}

/** Whether the caller has anything assigned at all (the navigation's "My labeling" link). */
export function countAssignments() {
  return unwrap(api.GET('/api/v1/labeling-assignments/', { params: { query: { page_size: 1 } } }));
}

/** Opening an assignment records when the annotator first saw it (their throughput). */
export function getAssignment(id: number) {
  return unwrap(api.GET('/api/v1/labeling-assignments/{id}/', { params: { path: { id } } }));
}

export function submitAssignment(id: number, body: SubmitBody) {
  return unwrap(api.POST('/api/v1/labeling-assignments/{id}/submit/', { params: { path: { id } }, body }));
}
