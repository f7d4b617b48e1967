import type { Assignment } from '../api/assignments';
import type { LabelingItem, LabelingTask } from '../api/tasks';

/** Payloads as the team-labeling API answers them (schema: LabelingTask, LabelingItem, LabelingAssignment). */
export const LABELS = [
  { id: 31, name: '五', color: '#e6194b', key: '1' },
  { id: 32, name: '六', color: '#3cb44b', key: '2' },
];

export function sample(id: number, name = `${id}.png`) {
  return { id, original_name: name, text: '', values: null, width: 8, height: 8, image: `/img/${id}`, thumbnail: `/thumb/${id}` };
}

export function task(overrides: Partial<LabelingTask> = {}): LabelingTask {
  return {
    id: 5,
    dataset: 3,
    dataset_name: 'digits',
    task_type: 'image_classification',
    name: 'Round one',
    instructions: 'Label the digit.',
    overlap: 2,
    status: 'open',
    selection: { by: 'filter', unlabeled: true, count: 4 },
    annotators: [
      { id: 8, username: 'ann', email: '' },
      { id: 9, username: 'bo', email: '' },
    ],
    labels: LABELS,
    progress: {
      items: 4,
      submitted: 2,
      accepted: 1,
      rejected: 1,
      per_annotator: [
        { annotator: 8, username: 'ann', assigned: 4, submitted: 3, accepted: 1, rejected: 1, to_do: 1 },
        { annotator: 9, username: 'bo', assigned: 4, submitted: 2, accepted: 1, rejected: 0, to_do: 2 },
      ],
    },
    my_progress: null,
    created_by: 'owner',
    created_at: '2026-12-05T00:00:00Z',
    ...overrides,
  } as LabelingTask;
}

export function item(id: number, answers: [number, string, number | null][], overrides: Partial<LabelingItem> = {}): LabelingItem {
  return {
    id,
    position: id,
    review: 'pending',
    review_comment: '',
    reviewer: null,
    reviewed_at: null,
    sample: sample(100 + id),
    assignments: answers.map(([annotator, username, label], index) => ({
      id: id * 10 + index,
      annotator,
      username,
      status: label === null ? 'pending' : 'submitted',
      answer: label === null ? null : { label },
      rejections: 0,
      comment: '',
      submitted_at: label === null ? null : `2026-12-05T00:0${index}:00Z`,
    })),
    ...overrides,
  } as LabelingItem;
}

export function assignment(id: number, status: Assignment['status'], position: number, overrides: Partial<Assignment> = {}): Assignment {
  return {
    id,
    task: { id: 5, name: 'Round one', instructions: 'Label the digit.', status: 'open', dataset: 3, task_type: 'image_classification' },
    task_name: 'Round one',
    task_type: 'image_classification',
    item: id,
    position,
    total: 4,
    status,
    answer: status === 'pending' ? null : { label: 31 },
    comment: status === 'rejected' ? 'That is a six' : '',
    rejections: status === 'rejected' ? 1 : 0,
    sample: sample(200 + id, `s${id}.png`),
    labels: LABELS,
    opened_at: null,
    submitted_at: status === 'pending' ? null : '2026-12-05T00:00:00Z',
    ...overrides,
  } as Assignment;
}
