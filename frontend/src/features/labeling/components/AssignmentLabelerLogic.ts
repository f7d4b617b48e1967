/** What the assignment labeler needs that is not drawing: the image's address, the label keys, the submit body. */
import type { SubmitBody } from '../api/assignments';

export type TaskType = 'image_classification' | 'text_classification' | 'tabular_classification' | 'tabular_regression' | 'object_detection';

export const IMAGE_TASKS: ReadonlySet<string> = new Set(['image_classification', 'object_detection']);

/** The sample's image as its annotator may read it (they cannot read the dataset itself). */
export function assignmentImageUrl(id: number): string {
  return `/api/v1/labeling-assignments/${id}/image/`;
}

export function assignmentThumbnailUrl(id: number): string {
  return `/api/v1/labeling-assignments/${id}/thumbnail/`;
}

/** Keys labels get when they name none, in label order (as the dataset labeler: 1-9, 0, then letters; "/" stays free). */
const DEFAULT_KEYS = [...'1234567890abcdefghijklmnopqrstuvwxyz'];

/** Each label's key: the server's `key` when it sent one, else the default of its place. */
export function labelShortcuts(labels: readonly { id: number; key?: string | null }[]): Map<string, number> {
  const keys = new Map<string, number>();
  labels.forEach((label, index) => {
    const key = (label.key ?? DEFAULT_KEYS[index] ?? '').toLowerCase();
    if (key && !keys.has(key)) keys.set(key, label.id);
  });
  return keys;
}

export type DrawnAnswerBox = { label: string; x: number; y: number; width: number; height: number };

/** The submit request in the shape of the dataset's task (API.md: {label} | {status, boxes} | {target}). */
export function submitBody(
  taskType: string,
  answer: { label?: number | null; boxes?: readonly DrawnAnswerBox[]; noObjects?: boolean; target?: number | null },
): SubmitBody | null {
  if (taskType === 'object_detection') {
    const boxes = (answer.boxes ?? []).map(({ label, x, y, width, height }) => ({ label, x, y, width, height }));
    if (boxes.length === 0 && !answer.noObjects) return null;
    return { status: boxes.length > 0 ? 'annotated' : 'no_objects', boxes } as SubmitBody;
  }
  if (taskType === 'tabular_regression') {
    if (answer.target === null || answer.target === undefined || Number.isNaN(answer.target)) return null;
    return { target: answer.target } as SubmitBody;
  }
  if (answer.label === null || answer.label === undefined) return null;
  return { label: answer.label } as SubmitBody;
}
