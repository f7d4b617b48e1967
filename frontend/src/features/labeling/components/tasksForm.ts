import type { LabelingTaskCreateBody } from '../api/tasks';

/** Which samples a new task hands out: the unlabeled ones, those with a label, or the smart-labeling ranking. */
export type SelectionKind = 'unlabeled' | 'label' | 'ranking';

export type TaskForm = {
  name: string;
  instructions: string;
  /** User ids as the multi-select holds them. */
  annotators: string[];
  overlap: number;
  selection: SelectionKind;
  /** Label id for `label`; the round for `ranking` (null: the latest). */
  label: string | null;
  round: number | null;
  /** How many samples; '' for all that match (the ranking needs a count). */
  count: number | '';
};

export const MAX_OVERLAP = 5;

export function emptyTaskForm(): TaskForm {
  return { name: '', instructions: '', annotators: [], overlap: 1, selection: 'unlabeled', label: null, round: null, count: 100 };
}

/** The form's problems as catalog keys under `tasks.create.errors`, by field; empty when it can be sent. */
export function taskFormErrors(form: TaskForm): Partial<Record<'name' | 'annotators' | 'overlap' | 'label' | 'count', string>> {
  const errors: Partial<Record<'name' | 'annotators' | 'overlap' | 'label' | 'count', string>> = {};
  if (!form.name.trim()) errors.name = 'name';
  if (form.annotators.length === 0) errors.annotators = 'annotators';
  if (form.overlap < 1 || form.overlap > MAX_OVERLAP) errors.overlap = 'overlapRange';
  else if (form.overlap > form.annotators.length && form.annotators.length > 0) errors.overlap = 'overlapAnnotators';
  if (form.selection === 'label' && !form.label) errors.label = 'label';
  if (form.count !== '' && (!Number.isInteger(form.count) || form.count < 1)) errors.count = 'count';
  if (form.selection === 'ranking' && form.count === '') errors.count = 'rankingCount';
  return errors;
}

/** The create request for a valid form (API.md: selection {by: "filter", unlabeled?, label?, count?} | {by: "ranking", round?, count}). */
export function taskCreateBody(datasetId: number, form: TaskForm): LabelingTaskCreateBody {
  const count = form.count === '' ? undefined : form.count;
  let selection: LabelingTaskCreateBody['selection'];
  if (form.selection === 'ranking') {
    selection = { by: 'ranking', count: count ?? 0, ...(form.round === null ? {} : { round: form.round }) };
  } else if (form.selection === 'label') {
    selection = { by: 'filter', label: Number(form.label), ...(count === undefined ? {} : { count }) };
  } else {
    selection = { by: 'filter', unlabeled: true, ...(count === undefined ? {} : { count }) };
  }
  return {
    dataset: datasetId,
    name: form.name.trim(),
    instructions: form.instructions.trim(),
    overlap: form.overlap,
    annotators: form.annotators.map(Number),
    selection,
  } as LabelingTaskCreateBody;
}
