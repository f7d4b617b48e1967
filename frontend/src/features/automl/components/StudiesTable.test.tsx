import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { StudiesTable } from './StudiesTable';

const BASE = {
  dataset_name: 'Digits',
  dataset_version_name: 'V1',
  status: 'completed',
  n_trials: 4,
  trials: { total: 4, complete: 4, pruned: 0, failed: 0, running: 0 },
  sampler: 'nsga2',
  sampler_in_use: 'nsga2',
  objective: { metric: 'val_acc', direction: 'maximize' },
  custom_code: null,
};

describe('StudiesTable', () => {
  it('shows the best value of a single-objective study and the front size of a multi-objective one', async () => {
    fakeApi({
      'GET /api/v1/studies/': page([
        { ...BASE, id: 1, name: 'one goal', best_trial: { value: 0.91 }, objectives: [{ metric: 'val_acc', direction: 'maximize' }], multi_objective: false },
        {
          ...BASE,
          id: 2,
          name: 'trade-offs',
          best_trial: { value: 0.95 },
          objectives: [
            { metric: 'val_acc', direction: 'maximize' },
            { metric: 'size_bytes', direction: 'minimize' },
          ],
          multi_objective: true,
          pareto_front: [0, 3, 4],
        },
      ]),
    });
    renderWithApp(<StudiesTable />);
    expect(await screen.findByTestId('study-1-best')).toHaveTextContent('0.9100');
    expect(screen.getByTestId('study-2-best')).toHaveTextContent('3 on the front');
    expect(screen.getAllByText('NSGA-II (multi-objective)', { selector: 'td' })).toHaveLength(2);
  });
});
