import type { LabelingTask } from '../api/tasks';

export type ProgressCounts = { items: number; submitted: number; accepted: number; rejected: number };

/**
 * The bar's sections as shares of the items: accepted, submitted and waiting for review (submitted
 * counts the accepted ones too), rejected (back with the annotators, not submitted again yet).
 */
export function progressSections({ items, submitted, accepted, rejected }: ProgressCounts) {
  if (items <= 0) return { accepted: 0, rejected: 0, waiting: 0 };
  const share = (count: number) => (Math.max(0, count) / items) * 100;
  return { accepted: share(accepted), rejected: share(rejected), waiting: share(submitted - accepted) };
}

type AnnotatorProgress = LabelingTask['progress']['per_annotator'][number];

/** Per annotator: accepted, waiting for review and still to label (sent back included), stacked: they add up to what was assigned. */
export function annotatorChartRows(perAnnotator: readonly AnnotatorProgress[]) {
  return perAnnotator.map((entry) => ({
    name: entry.username,
    accepted: entry.accepted,
    waiting: Math.max(0, entry.submitted - entry.accepted),
    toDo: entry.to_do,
  }));
}
