import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TasksCreateDialog } from './TasksCreateDialog';
import { task } from './tasksFixtures';
import { emptyTaskForm, taskCreateBody, taskFormErrors } from './tasksForm';

const MEMBERS = [
  { id: 8, username: 'ann', role: 'annotator' },
  { id: 9, username: 'bo', role: 'editor' },
];
const LABELS = [
  { id: 31, name: '五' },
  { id: 32, name: '六' },
];

describe('the create-task body', () => {
  it('sends each selection in the shape the API takes', () => {
    const base = { ...emptyTaskForm(), name: ' Round one ', instructions: '', annotators: ['8', '9'], overlap: 2 };
    expect(taskCreateBody(3, { ...base, selection: 'unlabeled', count: 40 })).toEqual({
      dataset: 3,
      name: 'Round one',
      instructions: '',
      overlap: 2,
      annotators: [8, 9],
      selection: { by: 'filter', unlabeled: true, count: 40 },
    });
    expect(taskCreateBody(3, { ...base, selection: 'label', label: '32', count: '' }).selection).toEqual({ by: 'filter', label: 32 });
    expect(taskCreateBody(3, { ...base, selection: 'ranking', count: 50 }).selection).toEqual({ by: 'ranking', count: 50 });
    expect(taskCreateBody(3, { ...base, selection: 'ranking', round: 4, count: 50 }).selection).toEqual({ by: 'ranking', round: 4, count: 50 });
  });

  it('refuses what the server would: no name, no annotator, overlap above the annotators, a ranking without a count', () => {
    expect(taskFormErrors(emptyTaskForm())).toEqual({ name: 'name', annotators: 'annotators' });
    const form = { ...emptyTaskForm(), name: 'x', annotators: ['8'], overlap: 2 };
    expect(taskFormErrors(form)).toEqual({ overlap: 'overlapAnnotators' });
    expect(taskFormErrors({ ...form, overlap: 1, selection: 'ranking', count: '' })).toEqual({ count: 'rankingCount' });
    expect(taskFormErrors({ ...form, overlap: 1, selection: 'label', label: null })).toEqual({ label: 'label' });
  });
});

/** Picks an option of a Mantine (Multi)Select by its text. */
async function pick(user: ReturnType<typeof userEvent.setup>, input: HTMLElement, name: string) {
  await user.click(input);
  const listbox = await waitFor(() => document.getElementById(input.getAttribute('aria-controls') ?? '') as HTMLElement);
  await user.click(within(listbox).getByRole('option', { name, hidden: true }));
}

describe('TasksCreateDialog', () => {
  it('creates a task from the form: annotators picked among the members, a label selection and a count', async () => {
    const server = fakeApi({ 'POST /api/v1/labeling-tasks/': json(task(), 201) });
    const created: number[] = [];
    const user = userEvent.setup();
    renderWithApp(<TasksCreateDialog datasetId={3} members={MEMBERS} labels={LABELS} onCreated={(made) => created.push(made.id)} />);
    await user.click(screen.getByTestId('task-create'));
    // Nothing filled in: the form says what is missing and sends nothing.
    await user.click(await screen.findByTestId('task-create-submit'));
    expect(await screen.findByText('Give the task a name.')).toBeInTheDocument();
    expect(screen.getByText('Pick at least one annotator.')).toBeInTheDocument();
    expect(server.callsTo('POST', '/api/v1/labeling-tasks/')).toHaveLength(0);

    await user.click(screen.getByTestId('task-name'));
    await user.paste('Round one');
    await user.click(screen.getByTestId('task-instructions'));
    await user.paste('Label the digit.');
    await pick(user, screen.getByTestId('task-annotators'), 'ann (annotator)');
    await pick(user, screen.getByTestId('task-annotators'), 'bo (editor)');
    await user.clear(screen.getByTestId('task-overlap'));
    await user.type(screen.getByTestId('task-overlap'), '2');
    await user.click(screen.getByText('With a label'));
    await pick(user, screen.getByTestId('task-label'), '六');
    await user.clear(screen.getByTestId('task-count'));
    await user.paste('20');
    await user.click(screen.getByTestId('task-create-submit'));

    await waitFor(() => expect(created).toEqual([5]));
    expect(server.callsTo('POST', '/api/v1/labeling-tasks/')[0].body).toEqual({
      dataset: 3,
      name: 'Round one',
      instructions: 'Label the digit.',
      overlap: 2,
      annotators: [8, 9],
      selection: { by: 'filter', label: 32, count: 20 },
    });
  });
});
