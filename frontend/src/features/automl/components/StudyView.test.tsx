import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { StudyView } from './StudyView';

const BEST = { number: 1, value: 0.9, params: { learning_rate: 0.003, augmentation: 'light' }, test_metrics: { accuracy: 0.88 }, model_version: null, model_version_name: null };

function study(overrides: Record<string, unknown> = {}) {
  return {
    id: 7,
    workspace: 1,
    project: 3,
    name: 'digits search',
    dataset: 4,
    dataset_name: 'Digits',
    dataset_version: 9,
    dataset_version_name: 'V1',
    template: 'image_classification',
    preset: 'fast',
    fixed_params: {},
    search_space: [
      { name: 'learning_rate', type: 'float', low: 0.0001, high: 0.01, log: true },
      { name: 'augmentation', type: 'categorical', choices: ['light', 'standard'] },
    ],
    objective: { metric: 'val_acc', direction: 'maximize' },
    sampler: 'sde',
    sampler_in_use: 'sde',
    pruner: 'median',
    n_trials: 3,
    timeout_seconds: null,
    parallelism: 2,
    seed: 0,
    report_seeds: 1,
    status: 'completed',
    trials: { total: 3, complete: 2, pruned: 1, failed: 0, running: 0 },
    best_trial: BEST,
    created_by: 'alice',
    created_at: '2026-11-29T10:00:00Z',
    started_at: '2026-11-29T10:00:00Z',
    finished_at: '2026-11-29T10:05:00Z',
    ...overrides,
  };
}

function trial(number: number, state: string, value: number | null, epochs: number[]) {
  return {
    id: number + 100,
    number,
    state,
    params: { learning_rate: 0.001 * (number + 1), augmentation: number % 2 ? 'light' : 'standard' },
    value,
    intermediate: epochs.map((epoch) => ({ epoch, value: 0.2 * epoch })),
    pruned_at_epoch: state === 'pruned' ? epochs.length : null,
    test_metrics: state === 'complete' ? { accuracy: 0.8 } : {},
    error: '',
    job: 50 + number,
    job_status: 'succeeded',
    duration_seconds: 12,
    started_at: '2026-11-29T10:00:00Z',
    finished_at: '2026-11-29T10:00:12Z',
    model_version: null,
    model_version_name: null,
  };
}

const RESULTS = {
  best_trial: BEST,
  history: [
    { trial: 0, value: 0.8, best: 0.8 },
    { trial: 1, value: 0.9, best: 0.9 },
  ],
  importances: { learning_rate: 0.7, augmentation: 0.3 },
  lift: {
    status: 'finished',
    metric: 'test accuracy',
    seeds: [0],
    baseline: { values: [0.8], mean: 0.8, std: 0, min: 0.8, max: 0.8 },
    best: { values: [0.86], mean: 0.86, std: 0, min: 0.86, max: 0.86 },
    lift: 0.06,
    errors: [],
  },
};

describe('StudyView', () => {
  it('shows trials, charts and the lift, and promotes the best trial to a linked model version', async () => {
    const server = fakeApi({
      'GET /api/v1/studies/7/': json(study()),
      'GET /api/v1/studies/7/trials/': json([trial(0, 'complete', 0.8, [1, 2, 3]), trial(1, 'complete', 0.9, [1, 2, 3]), trial(2, 'pruned', 0.2, [1])]),
      'GET /api/v1/studies/7/results/': json(RESULTS),
      'POST /api/v1/studies/7/promote/': () => json({ id: 31, name: 'V4' }, 201),
    });
    renderWithApp(<StudyView studyId={7} />);
    await waitFor(() => expect(screen.getByTestId('trials-table')).toHaveAttribute('data-rows', '3'));
    expect(screen.getAllByTestId('trial-row').map((row) => row.dataset.state)).toEqual(['complete', 'complete', 'pruned']);
    expect(screen.getByTestId('study-best-value')).toHaveTextContent('0.9000');
    expect(screen.getByTestId('chart-history')).toHaveAttribute('data-points', '2');
    expect(screen.getByTestId('chart-importances')).toHaveAttribute('data-points', '2');
    expect(screen.getByTestId('chart-intermediate')).toHaveAttribute('data-points', '3');
    expect(screen.getAllByTestId('parallel-line')).toHaveLength(3);
    await waitFor(() => expect(screen.getByTestId('lift-value')).toHaveTextContent('+6.0 pts'));
    expect(screen.getByTestId('lift-baseline')).toHaveTextContent('80.0%');

    await userEvent.setup().click(screen.getByTestId('promote-best'));
    const link = await screen.findByTestId('promoted-model-version');
    expect(link).toHaveTextContent('V4');
    expect(link).toHaveAttribute('href', '/model-versions/31');
    expect(server.callsTo('POST', '/api/v1/studies/7/promote/')[0].body).toEqual({});

    // any completed trial can be promoted from its row; pruned ones cannot
    expect(screen.queryByTestId('trial-2-promote')).toBeNull();
    await userEvent.setup().click(screen.getByTestId('trial-0-promote'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/studies/7/promote/')).toHaveLength(2));
    expect(server.callsTo('POST', '/api/v1/studies/7/promote/')[1].body).toEqual({ trial: 0 });
    expect(await screen.findByTestId('trial-0-model-version')).toHaveAttribute('href', '/model-versions/31');
  }, 20_000);

  it('offers pause while running and polls the trials as they arrive', async () => {
    let polls = 0;
    let status = 'running';
    const server = fakeApi({
      'GET /api/v1/studies/7/': () => json(study({ status, best_trial: null, trials: { total: 2, complete: 0, pruned: 0, failed: 0, running: 2 } })),
      'GET /api/v1/studies/7/trials/': () => json(polls++ === 0 ? [trial(0, 'running', null, [])] : [trial(0, 'running', null, [1]), trial(1, 'running', null, [])]),
      'GET /api/v1/studies/7/results/': json({ ...RESULTS, best_trial: null, history: [], importances: {}, lift: { ...RESULTS.lift, status: 'not_started' } }),
      'POST /api/v1/studies/7/pause/': () => {
        status = 'paused';
        return json(study({ status, best_trial: null }));
      },
    });
    renderWithApp(<StudyView studyId={7} />);
    await waitFor(() => expect(screen.getByTestId('trials-table')).toHaveAttribute('data-rows', '1'));
    expect(screen.getByTestId('promote-best')).toBeDisabled();
    await waitFor(() => expect(screen.getByTestId('trials-table')).toHaveAttribute('data-rows', '2'), { timeout: 5000 });
    await userEvent.setup().click(screen.getByTestId('study-pause'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/studies/7/pause/')).toHaveLength(1));
    expect(await screen.findByTestId('study-resume')).toBeInTheDocument();
  }, 20_000);
});
