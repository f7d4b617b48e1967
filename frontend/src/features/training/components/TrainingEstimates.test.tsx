import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TrainingForm } from './TrainingForm';
import { TEMPLATE } from './trainingFormFixtures';

const VERSION = {
  id: 8,
  dataset: 1,
  number: 2,
  name: 'V2',
  note: '',
  seed: 1,
  train_ratio: 0.8,
  val_ratio: 0.1,
  test_ratio: 0.1,
  classes: ['一', '二'],
  counts: {},
  totals: {},
  sample_count: 120,
  unlabeled_excluded: 0,
  reviewed_only: false,
  horizon: null,
  time_split: null,
  created_by: 'admin',
  created_at: '2026-11-29T10:00:00Z',
};

const CPU = { worker_class: 'cpu:16', device: 'cpu', name: '16', cpu_count: 16, count: 1 };
const NONE = (message: string) => ({ basis: 'none', message });

function estimate(preset: string, measured: boolean) {
  return {
    preset,
    title: preset,
    description: '',
    default: preset === 'balanced',
    model: 'cnn_small',
    time: measured
      ? { basis: 'measured', seconds: 125, samples_per_second: 210.5, runs: 3, worker_class: 'cpu:16', message: '' }
      : { ...NONE('No earlier run of this model on the workers online: the first run measures it.'), seconds: null, samples_per_second: null, runs: 0, worker_class: null },
    quality: measured
      ? {
          basis: 'measured',
          metric: 'accuracy',
          value: 0.98,
          best: 0.986,
          runs: 2,
          model_version: 4,
          model_version_name: 'V4',
          dataset_version_name: 'V1',
          message: '',
        }
      : {
          ...NONE('Not trained with this preset on this dataset yet.'),
          metric: null,
          value: null,
          best: null,
          runs: 0,
          model_version: null,
          model_version_name: null,
          dataset_version_name: null,
        },
    size: measured
      ? { basis: 'measured', bytes: 2_100_000, model_version: 4, model_version_name: 'V4', message: '' }
      : { ...NONE('No earlier model version with this model.'), bytes: null, model_version: null, model_version_name: null },
    speed: measured ? { basis: 'measured', latency_ms: 4, calls: 120, message: '' } : { ...NONE('Deploy one to measure it.'), latency_ms: null, calls: 0 },
  };
}

function estimates({ online = true } = {}) {
  return {
    kind: 'training_estimates',
    version: 1,
    dataset_version: 8,
    template: 'image_classification',
    train_samples: 96,
    workers: online
      ? { queue: 'cpu', online: 1, classes: [CPU], message: '1 worker online for the cpu queue.' }
      : { queue: 'cpu', online: 0, classes: [], message: 'No worker is online for the cpu queue.' },
    presets: [estimate('fast', online), estimate('balanced', false), estimate('accurate', false)],
  };
}

function routes(answer: unknown) {
  return {
    'GET /api/v1/templates/': [TEMPLATE],
    'GET /api/v1/backbones/': page([]),
    'GET /api/v1/training-estimates/': answer,
    'POST /api/v1/training-jobs/': { id: 77, kind: 'training.run', status: 'queued' },
  };
}

describe('TrainingForm estimates', () => {
  it('shows what each preset takes and gives, measured, with the basis, and says when nothing was measured', async () => {
    const server = fakeApi(routes(estimates()));
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={[VERSION]} onStarted={vi.fn()} />);

    const fast = await screen.findByTestId('preset-estimate-fast');
    expect(server.callsTo('GET', '/api/v1/training-estimates/')[0].search.get('dataset_version')).toBe('8');
    expect(screen.getByTestId('estimates-workers')).toHaveTextContent('1 worker online for training: 16-core CPU.');
    expect(within(fast).getByTestId('preset-estimate-fast-time-value')).toHaveTextContent('About 2m 05s on the 1 worker online');
    expect(within(fast).getByTestId('preset-estimate-fast-time')).toHaveTextContent('From 3 earlier runs of this model on 16-core CPU.');
    expect(within(fast).getByTestId('preset-estimate-fast-time-basis')).toHaveAttribute('data-basis', 'measured');
    expect(within(fast).getByTestId('preset-estimate-fast-quality-value')).toHaveTextContent('98.0% accuracy last time');
    expect(within(fast).getByTestId('preset-estimate-fast-quality')).toHaveTextContent('Test split of V4 (trained on V1). Best of 2 runs: 98.6%.');
    expect(within(fast).getByTestId('preset-estimate-fast-size-value')).toHaveTextContent('2.1 MB, 4 ms per prediction');
    expect(within(fast).getByTestId('preset-estimate-fast-size')).toHaveTextContent('Speed: the mean over 120 hosted predictions.');

    const balanced = screen.getByTestId('preset-estimate-balanced');
    expect(within(balanced).getByTestId('preset-estimate-balanced-time-value')).toHaveTextContent(
      'No earlier run on these workers: the first run measures it.',
    );
    expect(within(balanced).getByTestId('preset-estimate-balanced-time-basis')).toHaveAttribute('data-basis', 'none');
    expect(within(balanced).getByTestId('preset-estimate-balanced-time-basis')).toHaveTextContent('not measured yet');
    expect(within(balanced).getByTestId('preset-estimate-balanced-quality-value')).toHaveTextContent('Not trained with this preset on this dataset yet.');
    expect(within(balanced).getByTestId('preset-estimate-balanced-size-value')).toHaveTextContent('Known after the first run.');
  });

  it('says when no worker is online for the queue (and still lets the job queue)', async () => {
    fakeApi(routes(estimates({ online: false })));
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={[VERSION]} onStarted={vi.fn()} />);
    expect(await screen.findByTestId('estimates-no-worker')).toHaveTextContent(
      'No worker is online for the cpu queue: a training job waits in the queue until one starts.',
    );
    expect(screen.getByTestId('preset-estimate-fast-time-value')).toHaveTextContent('No worker online, so no time to expect.');
    expect(screen.getByTestId('training-start')).toBeEnabled();
  });

  it('explains each advanced setting in plain words with its range, without ML jargon', async () => {
    fakeApi(routes(estimates()));
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={[VERSION]} onStarted={vi.fn()} />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('advanced-settings-toggle'));
    const explain = await screen.findByTestId('param-learning_rate-explain');
    expect(explain).toHaveTextContent('How big each adjustment is.');
    expect(explain.textContent).not.toMatch(/AdamW/);
    expect(screen.getByTestId('param-learning_rate-range')).toHaveTextContent('1e-6 – 1 (log scale) · preset: 0.002');
    // the ML name stays as the label
    expect(screen.getByText('Learning rate')).toBeInTheDocument();
    // Reset says why it is disabled while nothing is overridden
    expect(screen.getByTestId('advanced-reset')).toBeDisabled();
    expect(screen.getByTestId('advanced-reset').closest('[data-disabled-reason]')).toHaveAttribute(
      'data-disabled-reason',
      "Nothing is overridden: every field shows the preset's value.",
    );
  });

  it('disables Start training with the reason for a viewer and without a dataset version', async () => {
    fakeApi(routes(estimates()));
    const { unmount } = renderWithApp(
      <TrainingForm taskType="image_classification" projectId={3} versions={[VERSION]} disabled onStarted={vi.fn()} />,
    );
    const start = await screen.findByTestId('training-start');
    expect(start).toBeDisabled();
    expect(start.closest('[data-disabled-reason]')?.getAttribute('data-disabled-reason')).toMatch(/Viewers can look/);
    unmount();

    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={[]} onStarted={vi.fn()} />);
    const startWithout = await screen.findByTestId('training-start');
    expect(startWithout).toBeDisabled();
    expect(startWithout.closest('[data-disabled-reason]')).toHaveAttribute(
      'data-disabled-reason',
      'Create a dataset version first: training runs on one.',
    );
  });

  it('speaks Chinese: preset cards, estimates and explanations', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi(routes(estimates()));
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={[VERSION]} onStarted={vi.fn()} />);
    const fast = await screen.findByTestId('preset-estimate-fast');
    expect(screen.getByTestId('preset-card-fast')).toHaveTextContent('快速');
    expect(screen.getByTestId('preset-card-balanced')).toHaveTextContent('默认');
    expect(screen.getByTestId('estimates-workers')).toHaveTextContent('1 台训练机器在线：16 核 CPU。');
    expect(within(fast).getByTestId('preset-estimate-fast-time-value')).toHaveTextContent('在 1 台在线机器上约需');
    expect(within(fast).getByTestId('preset-estimate-fast-quality-value')).toHaveTextContent('上次准确率 98.0%');
    expect(screen.getByTestId('preset-estimate-balanced-time-value')).toHaveTextContent('第一次训练后即可得到实测耗时');
    expect(screen.getByTestId('training-start')).toHaveTextContent('开始训练');
    const user = userEvent.setup();
    await user.click(screen.getByTestId('advanced-settings-toggle'));
    await waitFor(() => expect(screen.getByTestId('param-learning_rate-explain')).toHaveTextContent('每次调整的幅度'));
    expect(screen.getByText('学习率（learning rate）')).toBeInTheDocument();
  });
});
