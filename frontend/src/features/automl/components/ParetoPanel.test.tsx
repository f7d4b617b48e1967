import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { paretoPoints } from '../api/multiObjective';
import { ParetoChart } from './ParetoPanel';
import { StudyView } from './StudyView';

function study(overrides: Record<string, unknown> = {}) {
  return {
    id: 8,
    workspace: 1,
    project: 3,
    name: 'fast digits',
    dataset: 4,
    dataset_name: 'Digits',
    dataset_version: 9,
    dataset_version_name: 'V1',
    template: 'image_classification',
    preset: 'fast',
    fixed_params: {},
    search_space: [{ name: 'width', type: 'float', low: 0.25, high: 1 }],
    objective: { metric: 'val_acc', direction: 'maximize' },
    objectives: [
      { metric: 'val_acc', direction: 'maximize' },
      { metric: 'latency_ms', direction: 'minimize' },
    ],
    constraints: [{ metric: 'latency_ms', op: '<=', value: 5 }],
    target_profile: { name: 'worker-cpu', intra_op_threads: 1, inter_op_threads: 1, slowdown: 1, latency_budget_ms: null, size_budget_bytes: null },
    target_profile_id: null,
    multi_objective: true,
    pareto_front: [0, 2],
    space_notes: ['Searching width 0.25-1.0 and int8: latency is an objective.'],
    sampler: 'nsga2',
    sampler_in_use: 'nsga2',
    pruner: 'none',
    n_trials: 4,
    timeout_seconds: null,
    parallelism: 1,
    seed: 0,
    report_seeds: 0,
    status: 'completed',
    trials: { total: 4, complete: 4, pruned: 0, failed: 0, running: 0 },
    best_trial: null,
    created_by: 'alice',
    created_at: '2026-11-29T10:00:00Z',
    started_at: '2026-11-29T10:00:00Z',
    finished_at: '2026-11-29T10:05:00Z',
    ...overrides,
  };
}

function trial(number: number, values: [number, number], feasible: boolean, onFront: boolean) {
  return {
    id: number + 100,
    number,
    state: 'complete',
    params: { width: 0.25 * (number + 1) },
    value: values[0],
    values,
    measurements: { latency_ms: values[1], size_bytes: 120_000 * (number + 1), flops: 1000 },
    feasible,
    quantized: number === 2,
    on_front: onFront,
    intermediate: [],
    pruned_at_epoch: null,
    test_metrics: { accuracy: values[0] },
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

const TRIALS = [trial(0, [0.9, 4.0], true, true), trial(1, [0.85, 4.5], true, false), trial(2, [0.8, 1.5], true, true), trial(3, [0.95, 9.0], false, false)];
const RESULTS = {
  best_trial: null,
  history: [],
  importances: {},
  lift: { status: 'disabled', metric: 'test accuracy', seeds: [], baseline: { values: [], mean: null, std: null, min: null, max: null }, best: { values: [], mean: null, std: null, min: null, max: null }, lift: null, errors: [] },
};

describe('paretoPoints', () => {
  it('places completed trials by two objectives and marks the front and the infeasible ones', () => {
    const points = paretoPoints(TRIALS as never, [0, 2]);
    expect(points.map((p) => [p.trial.number, p.x, p.y, p.kind])).toEqual([
      [0, 0.9, 4.0, 'front'],
      [1, 0.85, 4.5, 'feasible'],
      [2, 0.8, 1.5, 'front'],
      [3, 0.95, 9.0, 'infeasible'],
    ]);
  });
});

describe('ParetoChart', () => {
  it('labels the ticks of a narrow range apart (latencies a few microseconds apart)', () => {
    const points = paretoPoints([trial(0, [0.1, 0.2531], true, true), trial(1, [0.1, 0.2562], true, false)] as never, [0]);
    renderWithApp(<ParetoChart points={points} x={{ metric: 'val_acc', direction: 'maximize' }} y={{ metric: 'latency_ms', direction: 'minimize' }} selected={null} onSelect={() => {}} />);
    const labels = [...screen.getByTestId('pareto-chart-svg').querySelectorAll('text')].map((node) => node.textContent).filter((text) => text?.endsWith(' ms'));
    expect(labels).toHaveLength(5);
    expect(new Set(labels).size).toBe(5);
  });
});

describe('ParetoPanel in StudyView', () => {
  it('draws the front, shows a picked trial and promotes it', async () => {
    const server = fakeApi({
      'GET /api/v1/studies/8/': json(study()),
      'GET /api/v1/studies/8/trials/': json(TRIALS),
      'GET /api/v1/studies/8/results/': json(RESULTS),
      'POST /api/v1/studies/8/promote/': () => json({ id: 41, name: 'V7' }, 201),
    });
    renderWithApp(<StudyView studyId={8} />);
    await waitFor(() => expect(screen.getByTestId('chart-pareto')).toHaveAttribute('data-points', '4'));
    expect(screen.getByTestId('pareto-point-0')).toHaveAttribute('data-kind', 'front');
    expect(screen.getByTestId('pareto-point-1')).toHaveAttribute('data-kind', 'feasible');
    expect(screen.getByTestId('pareto-point-3')).toHaveAttribute('data-kind', 'infeasible');
    expect(screen.getByTestId('pareto-front-line')).toHaveAttribute('data-points', '2');
    expect(screen.getByTestId('study-space-notes')).toHaveTextContent('Searching width 0.25-1.0 and int8');
    expect(screen.getByTestId('study-goals')).toHaveTextContent('latency_ms <= 5.00 ms'.replace('latency_ms', 'Latency on target'));
    // the front table lists the front, sorted by the first objective
    const table = screen.getByTestId('pareto-front-table');
    expect(table).toHaveAttribute('data-rows', '2');
    expect(within(table).getByTestId('front-row-2')).toHaveTextContent('int8');
    // a multi-objective study has no single best to promote: a point is picked instead
    expect(screen.queryByTestId('promote-best')).toBeNull();
    expect(screen.queryByTestId('best-trial')).toBeNull();
    expect(screen.getByTestId('study-front-count')).toHaveTextContent('2');
    expect(screen.getByTestId('trial-0-value')).toHaveTextContent('0.9000 · 4.00 ms');
    expect(screen.getByTestId('trial-3-infeasible')).toBeInTheDocument();
    expect(screen.queryByTestId('trial-0-infeasible')).toBeNull();

    const user = userEvent.setup();
    await user.click(screen.getByTestId('pareto-point-2'));
    const details = screen.getByTestId('pareto-selected');
    expect(details).toHaveAttribute('data-trial', '2');
    expect(details).toHaveTextContent('1.50 ms');
    await user.click(within(details).getByTestId('front-2-promote'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/studies/8/promote/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/studies/8/promote/')[0].body).toEqual({ trial: 2 });
    expect(await within(screen.getByTestId('pareto-selected')).findByTestId('front-2-model-version')).toHaveAttribute('href', '/model-versions/41');
  }, 20_000);

  it('keeps a single-objective study as it was (no Pareto panel)', async () => {
    fakeApi({
      'GET /api/v1/studies/8/': json(study({ objectives: [{ metric: 'val_acc', direction: 'maximize' }], multi_objective: false, constraints: [], pareto_front: [] })),
      'GET /api/v1/studies/8/trials/': json([]),
      'GET /api/v1/studies/8/results/': json(RESULTS),
    });
    renderWithApp(<StudyView studyId={8} />);
    await screen.findByTestId('trials-table');
    expect(screen.queryByTestId('pareto-panel')).toBeNull();
    expect(screen.getByTestId('promote-best')).toBeInTheDocument();
  }, 20_000);

  it('reads in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    try {
      fakeApi({
        'GET /api/v1/studies/8/': json(study()),
        'GET /api/v1/studies/8/trials/': json(TRIALS),
        'GET /api/v1/studies/8/results/': json(RESULTS),
      });
      renderWithApp(<StudyView studyId={8} />);
      await waitFor(() => expect(screen.getByTestId('chart-pareto')).toHaveAttribute('data-points', '4'));
      expect(screen.getByText('权衡（帕累托前沿）')).toBeInTheDocument();
      expect(screen.getByTestId('study-goals')).toHaveTextContent('目标：val_acc（越大越好） · 目标设备延迟（越小越好）');
      expect(screen.getByTestId('pareto-point-3')).toHaveAccessibleName('试验 3：0.9500，9.00 ms（不可行）');
    } finally {
      await i18n.changeLanguage('en');
    }
  }, 20_000);
});
