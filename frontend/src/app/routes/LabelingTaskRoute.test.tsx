import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { task } from '@/features/labeling/components/tasksFixtures';
import { fakeApi, json } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { LabelingTaskRoute } from './LabelingTaskRoute';

function serve(role: string) {
  return fakeApi({
    'GET /api/v1/labeling-tasks/5/': json(task()),
    'GET /api/v1/datasets/3/': json({ id: 3, name: 'digits', workspace: 7, project: 2, task_type: 'image_classification' }),
    'GET /api/v1/workspaces/7/': json({ id: 7, name: 'Vision', role }),
  });
}

describe('a labeling task page', () => {
  it("shows an owner the progress per annotator, the review and the agreement tabs", async () => {
    serve('owner');
    renderWithApp(<LabelingTaskRoute />, { route: '/labeling-tasks/5', path: '/labeling-tasks/:taskId/:tab?' });
    expect(await screen.findByTestId('task-title')).toHaveTextContent('Round one');
    expect(screen.getByTestId('overview-annotator-8')).toHaveTextContent('ann');
    expect(screen.getByTestId('overview-progress-text')).toHaveTextContent('2 / 4 submitted');
    expect(await screen.findByTestId('task-tab-review')).toBeInTheDocument();
    expect(screen.getByTestId('task-tab-agreement')).toBeInTheDocument();
    expect(screen.getByTestId('task-close')).toBeInTheDocument();
  });

  it('shows a viewer only the overview (review and agreement are the reviewers’)', async () => {
    const server = serve('viewer');
    const { queryClient } = renderWithApp(<LabelingTaskRoute />, { route: '/labeling-tasks/5/review', path: '/labeling-tasks/:taskId/:tab?' });
    expect(await screen.findByTestId('overview-annotator-9')).toHaveTextContent('bo');
    // The role is known before the tabs are judged.
    await waitFor(() => expect(server.callsTo('GET', '/api/v1/workspaces/7/')).toHaveLength(1));
    await waitFor(() => expect(queryClient.isFetching()).toBe(0));
    expect(screen.queryByTestId('task-tab-review')).not.toBeInTheDocument();
    expect(screen.queryByTestId('task-close')).not.toBeInTheDocument();
  });
});
