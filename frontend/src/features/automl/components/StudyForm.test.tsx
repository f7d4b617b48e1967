import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { StudyForm } from './StudyForm';

const TEMPLATE = {
  name: 'image_classification',
  title: 'Image classification',
  description: '',
  data_kind: 'image',
  default_preset: 'balanced',
  presets: [
    { name: 'fast', title: 'Fast', description: '', values: {} },
    { name: 'balanced', title: 'Balanced', description: '', values: {} },
  ],
  params: [
    { name: 'learning_rate', type: 'float', title: 'Learning rate', default: 0.002, minimum: 1e-6, maximum: 1, log: true },
    { name: 'epochs', type: 'int', title: 'Epochs', default: 15, minimum: 1, maximum: 500 },
    { name: 'augmentation', type: 'choice', title: 'Augmentation', default: 'standard', choices: ['none', 'light', 'standard'] },
    { name: 'seed', type: 'int', title: 'Seed', default: 0, minimum: 0, maximum: 10 },
  ],
  search_space: [
    { name: 'learning_rate', type: 'float', low: 0.0001, high: 0.01, log: true },
    { name: 'augmentation', type: 'categorical', choices: ['light', 'standard'] },
  ],
  metrics: [],
};

const DEFAULTS = {
  template: 'image_classification',
  queue: 'cpu',
  workers: 1,
  slots: 1,
  parallelism: 1,
  n_trials: 12,
  timeout_seconds: 10800,
  trial_seconds: 600,
  measured_runs: 3,
  estimated_seconds: 7200,
  explanation: '',
};

function routes(post: (body: unknown) => Response, defaults: unknown = DEFAULTS) {
  return fakeApi({
    'GET /api/v1/studies/defaults/': defaults,
    'GET /api/v1/templates/': [TEMPLATE],
    'GET /api/v1/projects/': page([{ id: 3, name: 'Digits project', workspace: 1 }]),
    'GET /api/v1/datasets/': page([{ id: 4, name: 'Digits', task_type: 'image_classification', workspace: 1, project: 3 }]),
    'GET /api/v1/datasets/4/versions/': page([{ id: 9, name: 'V1', sample_count: 200 }]),
    'POST /api/v1/studies/': (call: { body: unknown }) => post(call.body),
  });
}

describe('StudyForm', () => {
  it('loads the template search space, checks it locally, and sends the edited space', async () => {
    const server = routes(() => json({ id: 12 }, 201));
    const onCreated = vi.fn();
    renderWithApp(<StudyForm initial={{ project: 3, dataset: 4, version: 9 }} onCreated={onCreated} />);
    await waitFor(() => expect(screen.getByTestId('search-space-editor')).toHaveAttribute('data-dimensions', '2'));
    expect(screen.getByTestId('dim-0-name')).toHaveValue('learning_rate');

    const user = userEvent.setup();
    const high = screen.getByTestId('dim-0-high');
    await user.clear(high);
    await user.type(high, '0.00001');
    await user.click(screen.getByTestId('study-submit'));
    expect(await screen.findByText('Must be greater than low (0.0001).')).toBeInTheDocument();
    expect(server.callsTo('POST', '/api/v1/studies/')).toHaveLength(0);

    await user.clear(high);
    await user.type(high, '0.05');
    await user.selectOptions(screen.getByTestId('study-sampler'), 'cmaes');
    await user.selectOptions(screen.getByTestId('study-pruner'), 'successive_halving');
    await user.click(screen.getByTestId('study-submit'));
    await waitFor(() => expect(onCreated).toHaveBeenCalledWith({ id: 12 }));
    const body = server.callsTo('POST', '/api/v1/studies/')[0].body as Record<string, unknown>;
    expect(body).toMatchObject({ dataset_version: 9, preset: 'balanced', sampler: 'cmaes', pruner: 'successive_halving', n_trials: 12, parallelism: 1 });
    expect(body.search_space).toEqual([
      { name: 'learning_rate', type: 'float', low: 0.0001, high: 0.05, log: true },
      { name: 'augmentation', type: 'categorical', choices: ['light', 'standard'] },
    ]);
  }, 20_000);

  it("shows the server's validation message under the field it names", async () => {
    routes(() =>
      apiError(400, 'invalid', 'search_space[1].choices: Choice \'vivid\': augmentation must be one of ...', {
        'search_space[1].choices': ["Choice 'vivid': augmentation must be one of 'none', 'light', 'standard'."],
      }),
    );
    renderWithApp(<StudyForm initial={{ project: 3, dataset: 4, version: 9 }} onCreated={vi.fn()} />);
    await waitFor(() => expect(screen.getByTestId('search-space-editor')).toHaveAttribute('data-dimensions', '2'));
    const user = userEvent.setup();
    await user.click(screen.getByTestId('study-submit'));
    expect(await screen.findByText("Choice 'vivid': augmentation must be one of 'none', 'light', 'standard'.")).toBeInTheDocument();
    expect(screen.getByTestId('study-error')).toHaveTextContent('search_space[1].choices');
  }, 20_000);

  it('fills the budget from the workers online and says why, until the user edits it', async () => {
    const server = routes(() => json({ id: 12 }, 201));
    renderWithApp(<StudyForm initial={{ project: 3, dataset: 4, version: 9 }} onCreated={vi.fn()} />);
    const reason = await screen.findByTestId('study-defaults-reason');
    expect(reason).toHaveTextContent('1 worker online running 1 job at a time → 1 trial at a time');
    expect(reason).toHaveTextContent('A trial took 10m 00s on these workers (median of 3 runs), so 12 trials take about 2h 00m.');
    expect(screen.getByTestId('study-parallelism')).toHaveValue('1');
    expect(screen.getByTestId('study-n-trials')).toHaveValue('12');
    expect(screen.getByTestId('study-timeout')).toHaveValue('180');
    expect(server.callsTo('GET', '/api/v1/studies/defaults/')[0].search.get('template')).toBe('image_classification');

    const user = userEvent.setup();
    await user.clear(screen.getByTestId('study-parallelism'));
    await user.type(screen.getByTestId('study-parallelism'), '2');
    await user.click(screen.getByTestId('study-submit'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/studies/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/studies/')[0].body).toMatchObject({ parallelism: 2, n_trials: 12, timeout_seconds: 10800 });
  }, 20_000);

  it('says so when no worker is online for the trials', async () => {
    routes(() => json({ id: 12 }, 201), { ...DEFAULTS, workers: 0, slots: 0, timeout_seconds: null, trial_seconds: null, measured_runs: 0, estimated_seconds: null });
    renderWithApp(<StudyForm initial={{ project: 3, dataset: 4, version: 9 }} onCreated={vi.fn()} />);
    const reason = await screen.findByTestId('study-defaults-reason');
    expect(reason).toHaveTextContent('No worker is online for the cpu queue → 1 trial at a time');
    expect(reason).toHaveTextContent('no wall-time limit');
    expect(screen.getByTestId('study-timeout')).toHaveValue('');
  }, 20_000);

  it('a viewer of the project\'s workspace cannot start a study, and is told why', async () => {
    const server = routes(() => json({ id: 12 }, 201));
    renderWithApp(<StudyForm initial={{ project: 3, dataset: 4, version: 9 }} roles={{ 1: 'viewer' }} onCreated={vi.fn()} />);
    await waitFor(() => expect(screen.getByTestId('study-submit')).toBeDisabled());
    expect(screen.getByTestId('study-submit').closest('[data-disabled-reason]')).toHaveAttribute('data-disabled-reason', expect.stringContaining('You are a viewer'));
    expect(server.callsTo('POST', '/api/v1/studies/')).toHaveLength(0);
  }, 20_000);
});
