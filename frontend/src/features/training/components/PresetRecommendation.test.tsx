import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { PresetRecommendation } from '../api/recommendations';
import { TrainingForm } from './TrainingForm';
import { TrainingMonitor } from './TrainingMonitor';
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

function recommendation(preset: string, choices: PresetRecommendation['choices']): PresetRecommendation {
  const declared = TEMPLATE.presets.find((item) => item.name === preset)?.values ?? {};
  return {
    kind: 'preset_recommendation',
    version: 1,
    template: 'image_classification',
    preset,
    data: { train_samples: 108, classes: 2 },
    hardware: { gpus: 0, cpu_count: 2, workers: 1 },
    values: { ...declared, ...Object.fromEntries(choices.map((choice) => [choice.param, choice.value])) },
    choices,
  };
}

const BALANCED = recommendation('balanced', [
  { param: 'model', value: 'cnn_small', preset_value: 'resnet_narrow', reason: 'CPU-only workers: the small CNN trains in minutes.' },
  {
    param: 'epochs',
    value: 40,
    preset_value: 15,
    reason: '1,080 training images: small data needs more passes',
    reason_code: 'images_more_epochs',
    reason_params: { count: 1080 },
  },
]);

const NONE = { basis: 'none', message: '' };
function estimate(preset: string, rec: PresetRecommendation) {
  return {
    preset,
    title: preset,
    description: '',
    default: preset === 'balanced',
    model: String(rec.values.model),
    time: { ...NONE, seconds: null, samples_per_second: null, runs: 0, worker_class: null },
    quality: { ...NONE, metric: null, value: null, best: null, runs: 0, model_version: null, model_version_name: null, dataset_version_name: null },
    size: { ...NONE, bytes: null, model_version: null, model_version_name: null },
    speed: { ...NONE, latency_ms: null, calls: 0 },
    recommendation: rec,
  };
}

const ESTIMATES = {
  kind: 'training_estimates',
  version: 1,
  dataset_version: 8,
  template: 'image_classification',
  train_samples: 96,
  workers: { queue: 'cpu', online: 1, classes: [{ worker_class: 'cpu:2', device: 'cpu', name: '2', cpu_count: 2, count: 1 }], message: '' },
  presets: [estimate('fast', recommendation('fast', [])), estimate('balanced', BALANCED), estimate('accurate', recommendation('accurate', []))],
};

function routes() {
  return {
    'GET /api/v1/templates/': [TEMPLATE],
    'GET /api/v1/backbones/': page([]),
    'GET /api/v1/training-estimates/': ESTIMATES,
    'POST /api/v1/training-jobs/': { id: 77, kind: 'training.run', status: 'queued' },
  };
}

describe('Preset recommendation in the training form', () => {
  it('shows what the chosen preset changes for the data and workers, with why, and sends adapt only when declined', async () => {
    const server = fakeApi(routes());
    const onStarted = vi.fn();
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={[VERSION]} onStarted={onStarted} />);
    const user = userEvent.setup();

    const block = await screen.findByTestId('preset-recommendation');
    expect(block).toHaveTextContent('Chosen for your data and workers');
    expect(block).toHaveTextContent('108 training samples · CPU-only workers (2 cores)');
    const choices = within(block).getAllByTestId('auto-choice');
    expect(choices.map((choice) => choice.getAttribute('data-param'))).toEqual(['model', 'epochs']);
    expect(choices[1]).toHaveTextContent('Epochs: 15 → 40');
    expect(choices[1]).toHaveTextContent('1,080 training images: small data needs more passes');
    expect(choices[0]).toHaveTextContent('Model: resnet_narrow → cnn_small');

    // another preset: its own recommendation (nothing to change here)
    await user.click(screen.getByTestId('preset-card-fast'));
    expect(await screen.findByTestId('auto-choice-none')).toHaveTextContent("The preset's values suit this data and these workers as they are.");
    await user.click(screen.getByTestId('preset-card-balanced'));
    await screen.findAllByTestId('auto-choice');

    // a value set by hand is kept by the server: its choice is not shown
    await user.click(screen.getByTestId('advanced-settings-toggle'));
    const epochs = await screen.findByTestId('param-epochs');
    await user.clear(epochs);
    await user.type(epochs, '5');
    await waitFor(() => expect(screen.getAllByTestId('auto-choice').map((choice) => choice.getAttribute('data-param'))).toEqual(['model']));

    await user.click(screen.getByTestId('training-start'));
    await waitFor(() => expect(onStarted).toHaveBeenCalled());
    const adapted = server.callsTo('POST', '/api/v1/training-jobs/')[0].body as Record<string, unknown>;
    expect(adapted).toMatchObject({ dataset_version: 8, preset: 'balanced', params: { epochs: 5 } });
    expect(adapted).not.toHaveProperty('adapt');

    // the preset as declared: the choices give way to a note, and the job is started with adapt=false
    await user.click(screen.getByTestId('preset-adapt-toggle'));
    expect(screen.queryByTestId('preset-recommendation')).not.toBeInTheDocument();
    expect(screen.getByTestId('preset-as-declared')).toHaveTextContent("The preset's values run as declared");
    await user.click(screen.getByTestId('training-start'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/training-jobs/')).toHaveLength(2));
    expect(server.callsTo('POST', '/api/v1/training-jobs/')[1].body).toMatchObject({ preset: 'balanced', adapt: false });
  });

  it('speaks Chinese around the reasons the server gives', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi(routes());
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={[VERSION]} onStarted={vi.fn()} />);
    const block = await screen.findByTestId('preset-recommendation');
    expect(block).toHaveTextContent('根据你的数据和工作节点选择');
    expect(block).toHaveTextContent('108 个训练样本 · 仅 CPU 工作节点（2 核）');
    expect(within(block).getAllByTestId('auto-choice')[1]).toHaveTextContent('训练轮数（epochs）：15 → 40');
    // a coded reason in Chinese, its numbers formatted; an uncoded one (older records) as the server said it
    const reasons = within(block).getAllByTestId('auto-choice-reason');
    expect(reasons[1]).toHaveTextContent('1,080 张训练图片：数据少，需要更多轮训练');
    expect(reasons[1]).not.toHaveTextContent(/images|passes/);
    expect(reasons[0]).toHaveTextContent('CPU-only workers: the small CNN trains in minutes.');
    expect(screen.getByText('使用预设声明的取值')).toBeInTheDocument();
    await i18n.changeLanguage('en');
  });
});

describe('Recorded choices on the job page', () => {
  it("shows the job's recommendation from its params", async () => {
    fakeApi({ 'GET /api/v1/jobs/42/events/': () => json(page([])) });
    const job = {
      id: 42,
      status: 'queued' as const,
      progress: {},
      result: null,
      params: { kind: 'training.run', template: 'image_classification', preset: 'balanced', params: BALANCED.values, recommendation: BALANCED },
    };
    renderWithApp(<TrainingMonitor job={job as unknown as Parameters<typeof TrainingMonitor>[0]['job']} />);
    const block = await screen.findByTestId('job-recommendation');
    expect(within(block).getAllByTestId('auto-choice')).toHaveLength(2);
    await waitFor(() => expect(within(block).getAllByTestId('auto-choice')[1]).toHaveTextContent('Epochs: 15 → 40'));
    expect(block).toHaveTextContent('CPU-only workers: the small CNN trains in minutes.');
  });

  it('shows nothing for a job started with the preset as declared', async () => {
    fakeApi({ 'GET /api/v1/jobs/43/events/': () => json(page([])) });
    const job = { id: 43, status: 'queued' as const, progress: {}, result: null, params: { kind: 'training.run', template: 'image_classification' } };
    renderWithApp(<TrainingMonitor job={job as unknown as Parameters<typeof TrainingMonitor>[0]['job']} />);
    await screen.findByTestId('training-monitor');
    expect(screen.queryByTestId('job-recommendation')).not.toBeInTheDocument();
  });
});
