import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { i18n } from '@/i18n';
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

  it('shows full state names, and no trial stays running once the study completed', async () => {
    // The study poll sees the study complete before the trials poll sees its last trial end: the
    // view must read the trials again instead of showing #1 running until a reload.
    let completed = false;
    fakeApi({
      'GET /api/v1/studies/7/': () =>
        json(
          completed
            ? study({ trials: { total: 2, complete: 2, pruned: 0, failed: 0, running: 0 } })
            : study({ status: 'running', best_trial: null, trials: { total: 2, complete: 1, pruned: 0, failed: 0, running: 1 } }),
        ),
      'GET /api/v1/studies/7/trials/': () => {
        const answer = [trial(0, 'complete', 0.8, [1, 2]), trial(1, completed ? 'complete' : 'running', completed ? 0.9 : null, [1])];
        completed = true; // the study completes right after this read of the trials
        return json(answer);
      },
      'GET /api/v1/studies/7/results/': json(RESULTS),
    });
    renderWithApp(<StudyView studyId={7} />);
    await waitFor(() => expect(screen.getByTestId('trial-1-state')).toHaveTextContent('running'));
    await waitFor(() => expect(screen.getByTestId('study-status')).toHaveTextContent('completed'), { timeout: 5000 });
    await waitFor(() => expect(screen.getByTestId('trial-1-state')).toHaveTextContent('complete'), { timeout: 5000 });
    expect(screen.getAllByTestId('trial-row').map((row) => row.dataset.state)).toEqual(['complete', 'complete']);
    // the badge is never cut to "C…": its label does not clip
    expect(screen.getByTestId('study-status').textContent).toBe('completed');
  }, 20_000);

  it('says what the importances need instead of waiting forever', async () => {
    fakeApi({
      'GET /api/v1/studies/7/': json(study({ trials: { total: 3, complete: 2, pruned: 1, failed: 0, running: 0 } })),
      'GET /api/v1/studies/7/trials/': json([trial(0, 'complete', 0.8, [1, 2, 3]), trial(1, 'complete', 0.9, [1, 2, 3]), trial(2, 'pruned', 0.2, [1])]),
      'GET /api/v1/studies/7/results/': json({ ...RESULTS, importances: {} }),
    });
    renderWithApp(<StudyView studyId={7} />);
    const empty = await screen.findByTestId('chart-importances-empty');
    expect(empty).toHaveTextContent('Importances need at least 3 completed trials (2 so far).');
    expect(screen.queryByText('Waiting for trials…')).toBeNull();
    await waitFor(() => expect(screen.getByTestId('chart-history')).toHaveAttribute('data-points', '2'));
  }, 20_000);

  it('a viewer sees every control disabled with the reason', async () => {
    const server = fakeApi({
      'GET /api/v1/studies/7/': json(study({ status: 'running', my_role: 'viewer', trials: { total: 3, complete: 2, pruned: 1, failed: 0, running: 0 } })),
      'GET /api/v1/studies/7/trials/': json([trial(0, 'complete', 0.8, [1, 2, 3])]),
      'GET /api/v1/studies/7/results/': json(RESULTS),
    });
    renderWithApp(<StudyView studyId={7} />);
    for (const id of ['study-pause', 'study-stop', 'promote-best', 'trial-0-promote']) {
      const button = await screen.findByTestId(id);
      expect(button).toBeDisabled();
      expect(button.closest('[data-disabled-reason]')).toHaveAttribute('data-disabled-reason', expect.stringContaining('Viewers cannot start, pause, stop or promote studies'));
    }
    // Hovering opens the reason's tooltip, which the wrapper names as its description (aria-describedby).
    // Not findByRole('tooltip'): jsdom lays nothing out, so once floating-ui has positioned the tooltip
    // (a few ms after it opens) its hide middleware reads the 0x0 reference as hidden and Mantine sets
    // display: none; a role query passed only when its first look fell inside that window, and failed
    // when anything (a busy machine, the study's 2 s poll re-rendering) delayed it.
    const wrapper = screen.getByTestId('promote-best').closest('[data-disabled-reason]') as HTMLElement;
    expect(wrapper).not.toHaveAccessibleDescription(/Viewers cannot/);
    await userEvent.setup().hover(wrapper);
    await waitFor(() => expect(wrapper).toHaveAccessibleDescription(/Viewers cannot start, pause, stop or promote studies/));
    expect(screen.getByRole('tooltip', { hidden: true })).toHaveTextContent('Viewers cannot start, pause, stop or promote studies');
    expect(server.callsTo('POST', '/api/v1/studies/7/promote/')).toHaveLength(0);
  }, 20_000);

  it('judges a forecasting study by test MASE, a plain number where lower is better', async () => {
    const best = { ...BEST, value: 0.81, test_metrics: { mase: 0.75, smape: 11.2, skill: 0.2 } };
    const forecasting = (number: number, state: string, value: number | null) => ({ ...trial(number, state, value, [1]), test_metrics: state === 'complete' ? { mase: 0.7 + number / 10, smape: 10, skill: 0.1 } : {} });
    fakeApi({
      'GET /api/v1/studies/7/': json(study({ template: 'time_series_forecasting', objective: { metric: 'val_mase', direction: 'minimize' }, best_trial: best, trials: { total: 2, complete: 2, pruned: 0, failed: 0, running: 0 } })),
      'GET /api/v1/studies/7/trials/': json([forecasting(0, 'complete', 0.81), forecasting(1, 'complete', 0.92)]),
      'GET /api/v1/studies/7/results/': json({
        ...RESULTS,
        best_trial: best,
        lift: { ...RESULTS.lift, metric: 'test MASE', baseline: { values: [0.9], mean: 0.9, std: 0, min: 0.9, max: 0.9 }, best: { values: [0.8], mean: 0.8, std: 0, min: 0.8, max: 0.8 }, lift: -0.1 },
      }),
    });
    renderWithApp(<StudyView studyId={7} />);
    await waitFor(() => expect(screen.getByTestId('trials-table')).toHaveAttribute('data-rows', '2'));
    expect(screen.getByText('Test MASE', { selector: 'th' })).toBeInTheDocument();
    expect(screen.getByTestId('trial-1-test')).toHaveTextContent('0.800');
    expect(screen.getByTestId('best-trial')).toHaveTextContent('0.8100 validation, Test MASE 0.750');
    await waitFor(() => expect(screen.getByTestId('lift-value')).toHaveTextContent('-0.100 (lower is better)'));
    expect(screen.getByTestId('lift-baseline')).toHaveTextContent('0.900 ± 0.000 (n=1)');
  }, 20_000);

  it('reads in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi({
      'GET /api/v1/studies/7/': json(study({ status: 'paused', trials: { total: 3, complete: 1, pruned: 1, failed: 0, running: 1 } })),
      'GET /api/v1/studies/7/trials/': json([trial(0, 'complete', 0.8, [1]), trial(1, 'pruned', 0.2, [1]), trial(2, 'running', null, [])]),
      'GET /api/v1/studies/7/results/': json({ ...RESULTS, importances: {} }),
    });
    renderWithApp(<StudyView studyId={7} />);
    expect(await screen.findByTestId('study-status')).toHaveTextContent('已暂停');
    await waitFor(() => expect(screen.getByTestId('trial-1-state')).toHaveTextContent('已剪枝'));
    expect(screen.getByTestId('study-resume')).toHaveTextContent('继续');
    expect(screen.getByTestId('chart-importances-empty')).toHaveTextContent('参数重要性至少需要 3 个完成的试验（目前 1 个）。');
    expect(screen.getByText('试验', { selector: 'h5' })).toBeInTheDocument();
  }, 20_000);
});

describe('StudyView of a custom-code study', () => {
  it('names the code, counts steps, and shows neither a test column, a lift report nor promotion', async () => {
    const custom = {
      code_archive: 5,
      code_name: 'quadratic',
      code_sha256: 'ab'.repeat(32),
      code_kind: 'script',
      entry_point: 'quadratic.py',
      args: [],
      requirements: '',
      requirements_hash: 'cd'.repeat(32),
      limits: { wall_time_s: 120, memory_mb: 1024, cpus: 1 },
      network: false,
    };
    const best = { ...BEST, params: { x: 0.69 }, test_metrics: {} };
    const customTrial = (number: number, state: string, value: number, steps: number[]) => ({
      ...trial(number, state, value, steps),
      params: { x: 0.2 * (number + 1) },
      test_metrics: {},
    });
    fakeApi({
      'GET /api/v1/studies/8/': json(
        study({
          id: 8,
          name: 'quadratic',
          template: 'custom',
          custom_code: custom,
          preset: '',
          dataset: null,
          dataset_name: null,
          dataset_version: null,
          dataset_version_name: null,
          search_space: [{ name: 'x', type: 'float', low: 0, high: 1, log: false }],
          objective: { metric: 'score', direction: 'maximize' },
          report_seeds: 0,
          best_trial: best,
        }),
      ),
      'GET /api/v1/studies/8/trials/': json([customTrial(0, 'complete', 0.8, [1, 2, 3, 4, 5]), customTrial(1, 'complete', 0.9, [1, 2, 3, 4, 5]), customTrial(2, 'pruned', 0.1, [1])]),
      'GET /api/v1/studies/8/results/': json({ ...RESULTS, best_trial: best, importances: {}, lift: { ...RESULTS.lift, status: 'disabled', seeds: [], lift: null } }),
    });
    renderWithApp(<StudyView studyId={8} />);
    await waitFor(() => expect(screen.getByTestId('trials-table')).toHaveAttribute('data-rows', '3'));
    expect(screen.getByTestId('study-custom-code')).toHaveTextContent('Code quadratic (quadratic.py)');
    expect(screen.getByText('Steps')).toBeInTheDocument();
    expect(screen.queryByTestId('trial-0-test')).not.toBeInTheDocument();
    expect(screen.getByTestId('best-trial')).toHaveTextContent('Best trial #1: score = 0.9000');
    expect(screen.getByTestId('best-trial')).toHaveTextContent('x=0.690');
    expect(screen.queryByTestId('promote-best')).not.toBeInTheDocument();
    expect(screen.queryByTestId('trial-1-promote')).not.toBeInTheDocument();
    expect(screen.queryByTestId('lift-value')).not.toBeInTheDocument();
    expect(screen.queryByText(/Digits/)).not.toBeInTheDocument();
  }, 20_000);
});
