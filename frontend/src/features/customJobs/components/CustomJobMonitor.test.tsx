import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { CustomJobMonitor } from './CustomJobMonitor';

const SPEC = {
  kind: 'custom_job_spec',
  version: 1,
  code_sha256: 'a'.repeat(64),
  code_kind: 'script',
  entry_point: 'train.py',
  args: ['--seed', '1'],
  hyperparameters: { epochs: 2, lr: 0.01 },
  requirements: '',
  requirements_hash: 'e3b0',
  limits: { wall_time_s: 600, memory_mb: 1024, cpus: 1 },
  network: false,
  queue: 'cpu',
};

const RESULT = {
  kind: 'custom_job_result',
  version: 1,
  exit_code: 0,
  stopped: null,
  reason: '',
  duration_s: 42,
  peak_memory_mb: 310.4,
  metrics: { loss: 0.2, val_acc: 0.91 },
  history: [],
  artifacts: [{ path: 'confusion.png', name: 'confusion matrix', size_bytes: 2048, sha256: 'b'.repeat(64), key: 'custom-jobs/job-8/artifacts/confusion.png' }],
  model: { onnx: 'model.onnx', labels: 'labels.json', preprocessing: 'preprocess.json' },
  environment: { python: '3.12.1', platform: 'Linux-6.1-x86_64', packages: { numpy: '2.1.0', torch: '2.5.0' } },
  requirements_hash: 'e3b0',
  isolation: { user: true, network: false },
  model_version: 31,
  model_version_name: 'digits-cnn-v1',
};

const event = (seq: number, step: number, metrics: Record<string, number>) => ({
  seq,
  at: '2026-12-05T10:00:00Z',
  type: 'progress',
  message: `step ${step}`,
  data: { kind: 'progress', version: 1, step, custom_metrics: metrics },
});

describe('CustomJobMonitor', () => {
  it("draws each metric the code reported, and the finished run's outcome, model and environment", async () => {
    fakeApi({
      'GET /api/v1/jobs/8/events/': page([
        event(1, 1, { loss: 0.9, val_acc: 0.5 }),
        event(2, 2, { loss: 0.4, val_acc: 0.8 }),
        event(3, 3, { loss: 0.2, val_acc: 0.91 }),
      ]),
    });
    renderWithApp(
      <CustomJobMonitor
        job={{ id: 8, status: 'succeeded', project: 3, result: RESULT, params: { code_archive: 9, spec: SPEC, dataset_version: null } }}
        deploy={(version) => <div data-testid="deploy-slot">{`${version.id}:${version.name}:${version.project}`}</div>}
      />,
    );
    await waitFor(() => expect(screen.getByTestId('custom-curve-loss')).toHaveAttribute('data-points', '3'));
    expect(screen.getByTestId('custom-curve-val_acc')).toHaveAttribute('data-points', '3');
    expect(screen.getByTestId('custom-curve-count')).toHaveAttribute('data-metrics', '2');
    expect(screen.getByTestId('custom-job-exit')).toHaveTextContent('Exit code 0');
    expect(screen.getByTestId('custom-job-isolation-user')).toHaveTextContent('Sandbox user: enforced');
    expect(screen.getByTestId('custom-job-isolation-network')).toHaveTextContent('No network: not enforced');
    expect(screen.getByTestId('custom-job-model-link')).toHaveAttribute('href', '/model-versions/31');
    expect(screen.getByTestId('deploy-slot')).toHaveTextContent('31:digits-cnn-v1:3');
    expect(screen.getByTestId('custom-job-hyperparameters')).toHaveTextContent('epochs=2 lr=0.01');
    expect(screen.getByTestId('custom-job-artifact-confusion.png')).toHaveAttribute('href', '/api/v1/jobs/8/artifacts/?path=confusion.png');
    expect(screen.getByTestId('custom-job-artifact-list')).toHaveTextContent('confusion matrix');
    await userEvent.setup().click(screen.getByTestId('run-environment-toggle'));
    expect(screen.getByTestId('run-environment-packages')).toHaveTextContent('torch');
  });

  it('says why a run was stopped, in its words, and offers no model', async () => {
    fakeApi({ 'GET /api/v1/jobs/9/events/': page([]) });
    renderWithApp(
      <CustomJobMonitor
        job={{
          id: 9,
          status: 'failed',
          project: 3,
          params: { spec: SPEC },
          result: {
            ...RESULT,
            exit_code: null,
            stopped: 'memory_limit',
            reason: 'stopped: used 412 MiB, over its memory limit of 256 MiB',
            model: null,
            model_version: null,
            model_version_name: null,
          },
        }}
      />,
    );
    expect(await screen.findByTestId('custom-job-stopped')).toHaveTextContent('Stopped: memory limit');
    expect(screen.getByTestId('custom-job-reason')).toHaveTextContent('over its memory limit of 256 MiB');
    expect(screen.queryByTestId('custom-job-model')).not.toBeInTheDocument();
    expect(screen.getByText('The code reported no metrics.')).toBeInTheDocument();
  });
});
