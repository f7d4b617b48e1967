import type { DrawnBox } from '@/components/BoxedImage';
import type { LabelingItem, ReviewBody } from '../api/tasks';

/** Label id → its name and colour (the dataset's labels). */
export type LabelNames = ReadonlyMap<number, { name: string; color?: string }>;

export type Verdict = 'accept' | 'reject';

/**
 * The review request, or the catalog key (under `review.errors`) of why it cannot be sent: nothing
 * selected, or a rejection without a comment (the annotator needs to know what to fix).
 */
export function reviewRequest(
  items: readonly number[],
  verdict: Verdict,
  { comment = '', label = null }: { comment?: string; label?: number | null } = {},
): { body: ReviewBody } | { error: 'noItems' | 'commentRequired' } {
  if (items.length === 0) return { error: 'noItems' };
  const trimmed = comment.trim();
  if (verdict === 'reject' && !trimmed) return { error: 'commentRequired' };
  const body = { items: [...items], verdict, ...(trimmed ? { comment: trimmed } : {}), ...(verdict === 'accept' && label !== null ? { label } : {}) };
  return { body: body as ReviewBody };
}

type Answered = { answer?: unknown; status?: string; submitted_at?: string | null };

/** A classification answer's label id, or null (detection and regression answers have none). */
export function answerLabel(answer: unknown): number | null {
  if (answer && typeof answer === 'object' && 'label' in answer) {
    const label = (answer as { label: unknown }).label;
    return typeof label === 'number' ? label : null;
  }
  return null;
}

/**
 * The labels the submitted answers chose with their votes, most votes first (ties: the first
 * submitted first), which is the answer an accept writes unless the reviewer picks another.
 */
export function answerVotes(item: Pick<LabelingItem, 'assignments'>): { label: number; votes: number }[] {
  const submitted = (item.assignments as Answered[])
    .filter((assignment) => assignment.submitted_at && assignment.answer)
    .sort((a, b) => String(a.submitted_at).localeCompare(String(b.submitted_at)));
  const votes = new Map<number, number>();
  for (const assignment of submitted) {
    const label = answerLabel(assignment.answer);
    if (label !== null) votes.set(label, (votes.get(label) ?? 0) + 1);
  }
  // Map keeps first-submitted order; a stable sort keeps it among ties.
  return [...votes.entries()].map(([label, count]) => ({ label, votes: count })).sort((a, b) => b.votes - a.votes);
}

type Box = { label: string | number; x: number; y: number; width: number; height: number };

export function answerBoxes(answer: unknown): Box[] | null {
  if (answer && typeof answer === 'object' && 'boxes' in answer && Array.isArray((answer as { boxes: unknown }).boxes)) {
    return (answer as { boxes: Box[] }).boxes;
  }
  return null;
}

/** An answer's boxes drawn on the picture (detection review). */
export function answerDrawnBoxes(answer: unknown, labels: LabelNames): DrawnBox[] {
  return (answerBoxes(answer) ?? []).map((box) => {
    const name = typeof box.label === 'number' ? (labels.get(box.label)?.name ?? String(box.label)) : box.label;
    const color = [...labels.values()].find((entry) => entry.name === name)?.color;
    return { x: box.x, y: box.y, width: box.width, height: box.height, label: name, ...(color ? { color } : {}) };
  });
}

