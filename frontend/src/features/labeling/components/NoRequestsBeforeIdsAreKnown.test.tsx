import { renderHook, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createElement, type ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { LabelingTaskRoute } from '@/app/routes/LabelingTaskRoute';
import { useLabels } from '@/features/datasets';
import { fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TasksPanel } from './TasksPanel';
import { item, task } from './tasksFixtures';

// h8/h6 saw GET /api/v1/datasets/NaN/labels/ (404) around the New labeling task dialog and the task page.
const nothingUnknown = (calls: RecordedCall[]) => calls.map((call) => call.path).filter((path) => /NaN|undefined|null/.test(path));

describe('no request is sent for an id that is not known yet', () => {
  it('the Tasks tab and its New labeling task dialog ask only for this dataset', async () => {
    const server = fakeApi({
      'GET /api/v1/labeling-tasks/': page([task()]),
      'GET /api/v1/datasets/3/labels/': page([{ id: 31, name: '五', color: '', sample_count: 4, created_at: '2026-12-01T10:00:00Z' }]),
      'GET /api/v1/workspaces/7/members/': page([{ id: 1, role: 'annotator', user: { id: 8, username: 'ann' } }]),
    });
    renderWithApp(<TasksPanel datasetId={3} workspaceId={7} canEdit />);
    await userEvent.setup().click(await screen.findByTestId('task-create'));
    expect(await screen.findByTestId('task-name')).toBeInTheDocument();
    await waitFor(() => expect(server.callsTo('GET', '/api/v1/workspaces/7/members/')).toHaveLength(1));
    expect(nothingUnknown(server.calls)).toEqual([]);
  });

  it('the task page asks for the dataset only once the task said which', async () => {
    const server = fakeApi({
      'GET /api/v1/labeling-tasks/5/': json(task()),
      'GET /api/v1/labeling-tasks/5/items/': page([item(1, [[8, 'ann', 31]])]),
      'GET /api/v1/datasets/3/': json({ id: 3, name: 'digits', workspace: 7, project: 2, task_type: 'image_classification' }),
      'GET /api/v1/workspaces/7/': json({ id: 7, name: 'Vision', role: 'owner' }),
    });
    renderWithApp(<LabelingTaskRoute />, { route: '/labeling-tasks/5/review', path: '/labeling-tasks/:taskId/:tab?' });
    expect(await screen.findByTestId('review-item-1')).toBeInTheDocument();
    expect(server.callsTo('GET', '/api/v1/datasets/3/')).toHaveLength(1);
    expect(nothingUnknown(server.calls)).toEqual([]);
  });

  it('useLabels waits for a dataset id', async () => {
    const server = fakeApi({ 'GET /api/v1/datasets/3/labels/': page([]) });
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const wrapper = ({ children }: { children: ReactNode }) => createElement(QueryClientProvider, { client: queryClient }, children);
    const { result, rerender } = renderHook(({ id }) => useLabels(id), { wrapper, initialProps: { id: Number.NaN } });
    expect(result.current.fetchStatus).toBe('idle');
    rerender({ id: 3 });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(server.calls.map((call) => call.path)).toEqual(['/api/v1/datasets/3/labels/']);
  });
});
