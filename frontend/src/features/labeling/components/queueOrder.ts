import type { Assignment, AssignmentStatus } from '../api/assignments';

/** Each status's badge colour (the queue, the labeler). */
export const STATUS_COLORS: Record<string, string> = { pending: 'blue', rejected: 'red', submitted: 'gray', accepted: 'teal' };

/** Rejected work first (the reviewer is waiting for it), then what is left to label, then what is done. */
const STATUS_ORDER: Record<AssignmentStatus, number> = { rejected: 0, pending: 1, submitted: 2, accepted: 3 };

type Queued = Pick<Assignment, 'id' | 'status' | 'position'> & { task: Pick<Assignment['task'], 'id'> };

/** The queue in the order an annotator works through it: by status, then the task's order of samples. */
export function queueOrder<T extends Queued>(assignments: readonly T[]): T[] {
  return [...assignments].sort(
    (a, b) =>
      STATUS_ORDER[a.status as AssignmentStatus] - STATUS_ORDER[b.status as AssignmentStatus] ||
      a.task.id - b.task.id ||
      a.position - b.position ||
      a.id - b.id,
  );
}

export function isToDo(assignment: Pick<Assignment, 'status'>): boolean {
  return assignment.status === 'pending' || assignment.status === 'rejected';
}

/**
 * The assignment to open after `currentId`: the next one still to do in queue order after it
 * (wrapping round, so "skip" walks the whole queue), preferring the same task; null when none is left.
 */
export function nextToDo<T extends Queued>(assignments: readonly T[], currentId: number): T | null {
  const current = assignments.find((assignment) => assignment.id === currentId);
  const toDo = queueOrder(assignments).filter((assignment) => isToDo(assignment) || assignment.id === currentId);
  const sameTask = current ? toDo.filter((assignment) => assignment.task.id === current.task.id) : toDo;
  for (const candidates of [sameTask, toDo]) {
    const at = candidates.findIndex((assignment) => assignment.id === currentId);
    const rotated = at < 0 ? candidates : [...candidates.slice(at + 1), ...candidates.slice(0, at)];
    const next = rotated.find((assignment) => assignment.id !== currentId && isToDo(assignment));
    if (next) return next;
  }
  return null;
}

/** Per task: how many of the caller's assignments are done (submitted or accepted) out of all. */
export function personalProgress(assignments: readonly (Pick<Assignment, 'status'> & { task: Pick<Assignment['task'], 'id'> })[]): Map<number, { done: number; total: number; rejected: number }> {
  const progress = new Map<number, { done: number; total: number; rejected: number }>();
  for (const assignment of assignments) {
    const entry = progress.get(assignment.task.id) ?? { done: 0, total: 0, rejected: 0 };
    entry.total += 1;
    if (!isToDo(assignment)) entry.done += 1;
    if (assignment.status === 'rejected') entry.rejected += 1;
    progress.set(assignment.task.id, entry);
  }
  return progress;
}
