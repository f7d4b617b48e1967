import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TrainingForm } from './TrainingForm';
import { TEMPLATE } from './trainingFormFixtures';

const VALID_BACKBONE = {
  id: 5,
  workspace: 1,
  project: 3,
  name: 'resnet18-imagenet',
  filename: 'resnet18-imagenet.pt',
  sha256: 'ab12cd34ef56'.padEnd(64, '0'),
  size_bytes: 46_835_659,
  status: 'valid',
  error: '',
  summary: { architecture: 'resnet18', fits: ['resnet18'], tensors: 122, parameters: 11_689_512, head_classes: 1000, dtypes: ['float32'] },
  job: 70,
  created_by: 'admin',
  created_at: '2026-11-29T10:00:00Z',
  checked_at: '2026-11-29T10:00:03Z',
};

const VERSIONS = [
  {
    id: 8,
    dataset: 1,
    number: 2,
    name: 'V2',
    note: '',
    seed: 1,
    train_ratio: 0.8,
    val_ratio: 0.1,
    test_ratio: 0.1,
    classes: ['cat', 'dog'],
    counts: {},
    totals: {},
    sample_count: 120,
    unlabeled_excluded: 0,
    reviewed_only: false,
    horizon: null,
    time_split: null,
    created_by: 'admin',
    created_at: '2026-11-29T10:00:00Z',
  },
];

describe('TrainingForm', () => {
  it("explains a parameter in the template's own words where the template means something else by it (a forecaster's model)", async () => {
    fakeApi({
      'GET /api/v1/templates/': [TEMPLATE, { ...TEMPLATE, name: 'time_series_forecasting' }],
      'GET /api/v1/backbones/': page([]),
    });
    const user = userEvent.setup();
    const { unmount } = renderWithApp(<TrainingForm taskType="time_series_forecasting" projectId={3} versions={VERSIONS} onStarted={vi.fn()} />);
    await user.click(await screen.findByTestId('advanced-settings-toggle'));
    expect(await screen.findByTestId('param-model-explain')).toHaveTextContent('auto fits every candidate');
    unmount();

    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={VERSIONS} onStarted={vi.fn()} />);
    await user.click(await screen.findByTestId('advanced-settings-toggle'));
    expect(await screen.findByTestId('param-model-explain')).toHaveTextContent('The network that learns');
  });

  it('builds advanced settings from the template, sends only overrides, and shows the server messages on the fields', async () => {
    const server = fakeApi({
      'GET /api/v1/templates/': [TEMPLATE],
      'GET /api/v1/backbones/': page([]),
      'POST /api/v1/training-jobs/': () =>
        apiError(400, 'invalid', 'params.epochs: must be between 1 and 500, got 900', {
          'params.epochs': ['must be between 1 and 500, got 900'],
          'params.warmup_epochs': ['must be less than epochs (900), got 1000'],
        }),
    });
    const onStarted = vi.fn();
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={VERSIONS} onStarted={onStarted} />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('preset-card-fast'));
    expect(screen.getByTestId('preset-card-fast')).toHaveAttribute('data-selected', 'true');
    await user.click(screen.getByTestId('advanced-settings-toggle'));

    const epochs = await screen.findByTestId('param-epochs');
    expect(epochs).toHaveValue('10'); // the fast preset's value
    // each setting says what it does in plain words, its range and the preset's value
    expect(screen.getByTestId('param-epochs-explain')).toHaveTextContent('How many times training goes through all the training data');
    expect(screen.getByTestId('param-epochs-range')).toHaveTextContent('1 – 500 · preset: 10');
    expect(screen.getByTestId('param-model')).toHaveValue('cnn_small: small and fast');
    await user.clear(epochs);
    await user.type(epochs, '900');
    await user.clear(screen.getByTestId('param-warmup_epochs'));
    await user.type(screen.getByTestId('param-warmup_epochs'), '1000');
    await user.click(screen.getByTestId('training-start'));

    await waitFor(() => expect(server.callsTo('POST', '/api/v1/training-jobs/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/training-jobs/')[0].body).toEqual({
      dataset_version: 8,
      template: 'image_classification',
      preset: 'fast',
      params: { epochs: 900, warmup_epochs: 1000 },
    });
    const epochsField = screen.getByTestId('param-epochs').closest('.mantine-InputWrapper-root') as HTMLElement;
    expect(await within(epochsField).findByText('must be between 1 and 500, got 900')).toBeInTheDocument();
    const warmupField = screen.getByTestId('param-warmup_epochs').closest('.mantine-InputWrapper-root') as HTMLElement;
    expect(within(warmupField).getByText('must be less than epochs (900), got 1000')).toBeInTheDocument();
    expect(screen.getByTestId('training-error')).toHaveTextContent('Check the advanced settings');
    expect(onStarted).not.toHaveBeenCalled();
  });

  it('starts a run with the default preset and hands the job over', async () => {
    const job = { id: 77, kind: 'training.run', status: 'queued' };
    const server = fakeApi({
      'GET /api/v1/templates/': [TEMPLATE],
      'GET /api/v1/backbones/': page([]),
      'POST /api/v1/training-jobs/': (call: RecordedCall) => json({ ...job, params: call.body }, 201),
    });
    const onStarted = vi.fn();
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={VERSIONS} onStarted={onStarted} />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('training-start'));
    await waitFor(() => expect(onStarted).toHaveBeenCalledWith(expect.objectContaining({ id: 77 })));
    expect(server.callsTo('POST', '/api/v1/training-jobs/')[0].body).toEqual({
      dataset_version: 8,
      template: 'image_classification',
      preset: 'balanced',
      params: {},
    });
  });

  it('shows a version problem on the version field', async () => {
    fakeApi({
      'GET /api/v1/templates/': [TEMPLATE],
      'GET /api/v1/backbones/': page([]),
      'POST /api/v1/training-jobs/': () =>
        apiError(400, 'invalid', 'dataset_version: V2 has 1 labeled class (cat); training needs at least 2.', {
          dataset_version: ['V2 has 1 labeled class (cat); training needs at least 2.'],
        }),
    });
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={VERSIONS} onStarted={vi.fn()} />);
    await userEvent.setup().click(await screen.findByTestId('training-start'));
    expect(await screen.findByText('V2 has 1 labeled class (cat); training needs at least 2.')).toBeInTheDocument();
  });

  it('offers only valid backbones of the project, warns when one does not fit the model, and sends the chosen one', async () => {
    const backbones = [
      VALID_BACKBONE,
      { ...VALID_BACKBONE, id: 6, name: 'still-checking', status: 'pending', summary: null },
      { ...VALID_BACKBONE, id: 7, name: 'refused', status: 'invalid', error: 'refused', summary: null },
    ];
    const server = fakeApi({
      'GET /api/v1/templates/': [TEMPLATE],
      'GET /api/v1/backbones/': page(backbones),
      'POST /api/v1/training-jobs/': (call: RecordedCall) => json({ id: 78, kind: 'training.run', status: 'queued', params: call.body }, 201),
    });
    const onStarted = vi.fn();
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={VERSIONS} onStarted={onStarted} />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('pretrained-weights-toggle'));
    const select = await screen.findByTestId('training-backbone-select');
    expect(select).toHaveValue('Nothing: train from scratch');
    await waitFor(() => expect(server.callsTo('GET', '/api/v1/backbones/')[0].search.get('project')).toBe('3'));
    await user.click(select);
    const valid = await screen.findByRole('option', { name: 'resnet18-imagenet · resnet18 · 11.7M parameters', hidden: true });
    const listbox = valid.closest('[role="listbox"]') as HTMLElement;
    expect(within(listbox).getAllByRole('option', { hidden: true }).map((option) => option.textContent)).toEqual([
      'Nothing: train from scratch',
      'resnet18-imagenet · resnet18 · 11.7M parameters',
    ]);
    await user.click(valid);
    expect(screen.getByTestId('pretrained-weights-chosen')).toHaveTextContent('resnet18-imagenet');
    // the default preset (balanced) trains resnet_narrow: the weights do not fit it
    expect(screen.getByTestId('training-backbone-misfit')).toHaveTextContent('fits resnet18, but this run trains resnet_narrow');
    await user.click(screen.getByTestId('preset-card-accurate'));
    expect(screen.queryByTestId('training-backbone-misfit')).not.toBeInTheDocument();
    await user.click(screen.getByTestId('training-start'));
    await waitFor(() => expect(onStarted).toHaveBeenCalledWith(expect.objectContaining({ id: 78 })));
    expect(server.callsTo('POST', '/api/v1/training-jobs/')[0].body).toEqual({
      dataset_version: 8,
      template: 'image_classification',
      preset: 'accurate',
      params: {},
      backbone: 5,
    });
  });

  it('shows a backbone problem from the server on the weights field', async () => {
    fakeApi({
      'GET /api/v1/templates/': [TEMPLATE],
      'GET /api/v1/backbones/': page([VALID_BACKBONE]),
      'POST /api/v1/training-jobs/': () =>
        apiError(400, 'invalid', "backbone: Backbone 'resnet18-imagenet' belongs to another project.", {
          backbone: ["Backbone 'resnet18-imagenet' belongs to another project."],
        }),
    });
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={VERSIONS} onStarted={vi.fn()} />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('pretrained-weights-toggle'));
    await user.click(await screen.findByTestId('training-backbone-select'));
    await user.click(await screen.findByRole('option', { name: /^resnet18-imagenet/, hidden: true }));
    await user.click(screen.getByTestId('pretrained-weights-toggle')); // closed again: the error reopens it
    await user.click(screen.getByTestId('training-start'));
    const problem = await screen.findByText("Backbone 'resnet18-imagenet' belongs to another project.");
    // the accordion reopens with a transition: visible once it has run (slow on a loaded machine)
    await waitFor(() => expect(problem).toBeVisible(), { timeout: 5000 });
    expect(screen.queryByTestId('training-error')).not.toBeInTheDocument();
  });
});
