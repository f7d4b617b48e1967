import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { item, task } from '@/features/labeling/components/tasksFixtures';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { LabelingTaskRoute } from './LabelingTaskRoute';

function serve(role: string) {
  return fakeApi({
    'GET /api/v1/labeling-tasks/5/': json(task()),
    'GET /api/v1/labeling-tasks/5/items/': page([item(1, [[8, 'ann', 31], [9, 'bo', 31]])]),
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

  it('shows a viewer the answers to review, read only', async () => {
    serve('viewer');
    renderWithApp(<LabelingTaskRoute />, { route: '/labeling-tasks/5/review', path: '/labeling-tasks/:taskId/:tab?' });
    expect(await screen.findByTestId('review-answer-10')).toHaveTextContent('ann五');
    expect(screen.getByTestId('review-item-1')).toHaveTextContent('Waiting for review');
    expect(screen.queryByTestId('review-accept-1')).not.toBeInTheDocument();
    expect(screen.queryByTestId('review-select-all')).not.toBeInTheDocument();
    expect(screen.queryByTestId('task-close')).not.toBeInTheDocument();
  });

  it('shows an annotator who opens their task only its overview', async () => {
    fakeApi({ 'GET /api/v1/labeling-tasks/5/': json(task()) });
    const { queryClient } = renderWithApp(<LabelingTaskRoute />, { route: '/labeling-tasks/5/review', path: '/labeling-tasks/:taskId/:tab?' });
    expect(await screen.findByTestId('overview-annotator-9')).toHaveTextContent('bo');
    await waitFor(() => expect(queryClient.isFetching()).toBe(0));
    expect(screen.queryByTestId('task-tab-review')).not.toBeInTheDocument();
    expect(screen.queryByTestId('review-table')).not.toBeInTheDocument();
  });
});
