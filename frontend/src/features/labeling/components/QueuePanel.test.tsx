import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { AppRoutes } from '@/app/AppRoutes';
import { ADMIN, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { QueuePanel } from './QueuePanel';
import { nextToDo, personalProgress, queueOrder } from './queueOrder';
import { assignment } from './tasksFixtures';

const ANNOTATOR = { id: 8, username: 'ann', email: '', is_staff: false };

describe('the queue order', () => {
  it('puts sent-back work first, then what is left to label, then what is done, each in the task order', () => {
    const queue = [assignment(1, 'submitted', 1), assignment(2, 'pending', 3), assignment(3, 'rejected', 4), assignment(4, 'pending', 2), assignment(5, 'accepted', 0)];
    expect(queueOrder(queue).map((entry) => entry.id)).toEqual([3, 4, 2, 1, 5]);
    expect(nextToDo(queue, 3)?.id).toBe(4);
    expect(nextToDo(queue, 2)?.id).toBe(3);
    expect(nextToDo([assignment(1, 'submitted', 1), assignment(2, 'pending', 2)], 2)).toBeNull();
    expect(personalProgress(queue).get(5)).toEqual({ done: 2, total: 5, rejected: 1 });
  });
});

describe('My labeling', () => {
  it("lists the caller's queue with the reviewer's comment on sent-back work, first", async () => {
    fakeApi({
      'GET /api/v1/labeling-assignments/': page([assignment(1, 'submitted', 1), assignment(2, 'pending', 2), assignment(3, 'rejected', 3)]),
    });
    renderWithApp(<QueuePanel />);
    const table = await screen.findByTestId('queue-table-5');
    const rows = within(table).getAllByRole('row');
    expect(rows.map((row) => row.getAttribute('data-status'))).toEqual(['rejected', 'pending', 'submitted']);
    expect(screen.getByTestId('queue-comment-3')).toHaveTextContent('Reviewer: That is a six');
    expect(screen.getByTestId('queue-progress-5')).toHaveTextContent('1 / 3 done');
    expect(screen.getByTestId('queue-start-5')).toHaveAttribute('href', '/labeling/assignments/3');
  });

  it('offers no work from a closed task', async () => {
    const closed = { id: 5, name: 'Round one', instructions: '', status: 'closed', dataset: 3, task_type: 'image_classification' };
    fakeApi({ 'GET /api/v1/labeling-assignments/': page([assignment(2, 'pending', 2, { task: closed })]) });
    renderWithApp(<QueuePanel />);
    expect(await screen.findByTestId('queue-closed-5')).toHaveTextContent('Closed');
    expect(screen.queryByTestId('queue-start-5')).not.toBeInTheDocument();
  });

  it('an annotator lands on their queue, sees only "My labeling", and labels with a key: the answer goes in and the next sample opens', async () => {
    const queue = [assignment(2, 'pending', 2), assignment(3, 'pending', 3), assignment(1, 'submitted', 1)];
    const server = fakeApi({
      'GET /api/v1/auth/me/': json(ANNOTATOR),
      'GET /api/v1/workers/': json([]),
      'GET /api/v1/workspaces/': page([{ id: 7, name: 'Vision', role: 'annotator' }]),
      'GET /api/v1/labeling-assignments/': page(queue),
      'GET /api/v1/labeling-assignments/2/': json(queue[0]),
      'GET /api/v1/labeling-assignments/3/': json(queue[1]),
      'POST /api/v1/labeling-assignments/2/submit/': json({ ...queue[0], status: 'submitted', answer: { label: 32 } }),
    });
    const user = userEvent.setup();
    renderWithApp(<AppRoutes />, { route: '/' });
    expect(await screen.findByTestId('queue-task-5')).toBeInTheDocument();
    expect(screen.getByTestId('nav-my-labeling')).toHaveAttribute('data-active');
    expect(screen.queryByTestId('nav-workspaces')).not.toBeInTheDocument();
    expect(screen.queryByTestId('nav-jobs')).not.toBeInTheDocument();

    await user.click(screen.getByTestId('queue-start-5'));
    const labeler = await screen.findByTestId('assignment-labeler');
    await waitFor(() => expect(screen.getByTestId('assignment-progress')).toHaveTextContent('1 / 3'));
    expect(within(labeler).getByTestId('sample-image')).toHaveAttribute('src', '/img/202');
    await user.keyboard('2');
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/labeling-assignments/2/submit/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/labeling-assignments/2/submit/')[0].body).toEqual({ label: 32 });
    await waitFor(() => expect(server.callsTo('GET', '/api/v1/labeling-assignments/3/')).toHaveLength(1));
  });

  it('gives an editor with assignments a "My labeling" link beside the rest', async () => {
    fakeApi({
      'GET /api/v1/auth/me/': json({ ...ADMIN, is_staff: false }),
      'GET /api/v1/workers/': json([]),
      'GET /api/v1/tokens/': json(page([])),
      'GET /api/v1/workspaces/': page([{ id: 7, name: 'Vision', role: 'editor' }]),
      'GET /api/v1/labeling-assignments/': page([assignment(1, 'pending', 1)]),
    });
    renderWithApp(<AppRoutes />, { route: '/tokens' });
    expect(await screen.findByTestId('nav-my-labeling')).toHaveAttribute('href', '/labeling');
    expect(screen.getByTestId('nav-workspaces')).toBeInTheDocument();
    expect(screen.getByTestId('nav-tokens')).toHaveAttribute('data-active');
  });
});
