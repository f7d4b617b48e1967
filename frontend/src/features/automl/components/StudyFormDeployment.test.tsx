import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { StudyForm } from './StudyForm';

const TEMPLATE = {
  name: 'image_classification',
  title: 'Image classification',
  description: '',
  data_kind: 'image',
  default_preset: 'fast',
  presets: [{ name: 'fast', title: 'Fast', description: '', values: {} }],
  params: [{ name: 'learning_rate', type: 'float', title: 'Learning rate', default: 0.002, minimum: 1e-6, maximum: 1, log: true }],
  search_space: [{ name: 'learning_rate', type: 'float', low: 0.0001, high: 0.01, log: true }],
  objective: { metric: 'val_acc', direction: 'maximize' },
  metrics: [],
};
const BUILTIN = { name: 'edge-arm-slow', description: '', runtime: 'onnxruntime', execution_provider: 'CPUExecutionProvider', intra_op_threads: 1, inter_op_threads: 1, batch_size: 1, slowdown: 4, latency_budget_ms: null, size_budget_bytes: null };

function routes() {
  return fakeApi({
    'GET /api/v1/studies/defaults/': { template: 'image_classification', queue: 'cpu', workers: 1, slots: 1, parallelism: 1, n_trials: 6, timeout_seconds: null, trial_seconds: null, measured_runs: 0, estimated_seconds: null, explanation: '' },
    'GET /api/v1/templates/': [TEMPLATE],
    'GET /api/v1/projects/': page([{ id: 3, name: 'Digits project', workspace: 1 }]),
    'GET /api/v1/datasets/': page([{ id: 4, name: 'Digits', task_type: 'image_classification', workspace: 1, project: 3 }]),
    'GET /api/v1/datasets/4/versions/': page([{ id: 9, name: 'V1', sample_count: 200 }]),
    'GET /api/v1/target-profiles/builtins/': [BUILTIN],
    'GET /api/v1/target-profiles/': page([{ ...BUILTIN, id: 5, workspace: 1, name: 'kiosk', slowdown: 2, latency_budget_ms: 5, builtin: false }]),
    'POST /api/v1/studies/': () => json({ id: 12 }, 201),
  });
}

describe('StudyForm deployment section', () => {
  it('stays a single-objective study until the section is switched on', async () => {
    const server = routes();
    renderWithApp(<StudyForm initial={{ project: 3, dataset: 4, version: 9 }} onCreated={vi.fn()} />);
    await waitFor(() => expect(screen.getByTestId('search-space-editor')).toHaveAttribute('data-dimensions', '1'));
    expect(screen.queryByTestId('objective-0')).toBeNull();
    await userEvent.setup().click(screen.getByTestId('study-submit'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/studies/')).toHaveLength(1));
    const body = server.callsTo('POST', '/api/v1/studies/')[0].body as Record<string, unknown>;
    expect(body).not.toHaveProperty('objectives');
    expect(body).not.toHaveProperty('target_profile');
  }, 20_000);

  it('sends objectives, a constraint, the target profile and the int8 dimension; checks the constraint first', async () => {
    const server = routes();
    const onCreated = vi.fn();
    renderWithApp(<StudyForm initial={{ project: 3, dataset: 4, version: 9 }} onCreated={onCreated} />);
    await waitFor(() => expect(screen.getByTestId('search-space-editor')).toHaveAttribute('data-dimensions', '1'));
    const user = userEvent.setup();
    await user.click(screen.getByTestId('study-deployment-aware'));
    // default: the template's metric against latency on the target
    expect(screen.getByTestId('objective-0-metric')).toHaveValue('val_acc');
    expect(screen.getByTestId('objective-1-metric')).toHaveValue('latency_ms');
    // CMA-ES optimizes one objective: not offered now; NSGA-II is
    const samplers = within(screen.getByTestId('study-sampler')).getAllByRole('option').map((option) => option.getAttribute('value'));
    expect(samplers).not.toContain('cmaes');
    expect(samplers).toContain('nsga2');
    await user.selectOptions(screen.getByTestId('study-sampler'), 'nsga2');
    // several objectives are not pruned: the pruner reads none and cannot be changed
    expect(screen.getByTestId('study-pruner')).toHaveValue('none');
    expect(screen.getByTestId('study-pruner')).toBeDisabled();

    await user.click(screen.getByTestId('constraint-add'));
    await user.click(screen.getByTestId('study-submit'));
    expect(await screen.findByText('Must be a number.')).toBeInTheDocument();
    expect(server.callsTo('POST', '/api/v1/studies/')).toHaveLength(0);
    await user.type(screen.getByTestId('constraint-0-value'), '5');

    await waitFor(() => expect(within(screen.getByTestId('study-target-profile')).getAllByRole('option')).toHaveLength(3));
    await user.selectOptions(screen.getByTestId('study-target-profile'), '5');
    await user.click(screen.getByTestId('study-quantization'));
    await user.click(screen.getByTestId('study-submit'));
    await waitFor(() => expect(onCreated).toHaveBeenCalledWith({ id: 12 }));
    const body = server.callsTo('POST', '/api/v1/studies/')[0].body as Record<string, unknown>;
    expect(body).toMatchObject({
      sampler: 'nsga2',
      pruner: 'none',
      objectives: [
        { metric: 'val_acc', direction: 'maximize' },
        { metric: 'latency_ms', direction: 'minimize' },
      ],
      constraints: [{ metric: 'latency_ms', op: '<=', value: 5 }],
      target_profile: 5,
    });
    expect(body.search_space).toEqual([
      { name: 'learning_rate', type: 'float', low: 0.0001, high: 0.01, log: true },
      { name: 'quantization', type: 'categorical', choices: ['none', 'int8'] },
    ]);
  }, 30_000);
});
