import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TasksPanel } from './TasksPanel';
import { task } from './tasksFixtures';

describe("a dataset's Tasks tab", () => {
  it('lists its tasks with their progress; a viewer cannot create one', async () => {
    const server = fakeApi({
      'GET /api/v1/labeling-tasks/': page([task(), task({ id: 6, name: 'Closed one', status: 'closed' })]),
      'GET /api/v1/datasets/3/labels/': page([]),
    });
    renderWithApp(<TasksPanel datasetId={3} workspaceId={7} canEdit={false} />);
    expect(await screen.findByTestId('task-row-5')).toHaveTextContent('Round one');
    expect(screen.getByTestId('task-row-5')).toHaveTextContent('ann, bo');
    expect(screen.getByTestId('task-progress-5-text')).toHaveTextContent('2 / 4 submitted');
    expect(screen.getByTestId('task-row-6')).toHaveTextContent('Closed');
    expect(screen.getByRole('link', { name: 'Round one' })).toHaveAttribute('href', '/labeling-tasks/5');
    expect(screen.queryByTestId('task-create')).not.toBeInTheDocument();
    expect(server.callsTo('GET', '/api/v1/labeling-tasks/')[0].search.get('dataset')).toBe('3');
    // the members are read only by those who can hand out samples
    expect(server.callsTo('GET', '/api/v1/workspaces/7/members/')).toHaveLength(0);
  });
});
