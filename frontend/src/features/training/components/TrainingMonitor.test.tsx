import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { ProgressEvent } from '../api/trainingJobs';
import { TrainingMonitor } from './TrainingMonitor';
import { toCurves } from './trainingCurves';

function progress(seq: number, fields: Omit<ProgressEvent, 'kind' | 'version'>) {
  const data: ProgressEvent = { kind: 'progress', version: 1, ...fields };
  return { seq, at: '2026-11-29T10:00:00Z', type: 'progress' as const, message: '', data };
}

const STEP1 = progress(3, { epoch: 1, epochs: 2, step: 1, steps: 4, loss: 2.3, train_acc: 0.1, lr: 0.001, samples_per_s: 50, eta_s: 20, fraction: 0.25 });
const STEP2 = progress(4, { epoch: 1, epochs: 2, step: 2, steps: 4, loss: 2.1, train_acc: 0.2, lr: 0.002, samples_per_s: 55, eta_s: 15, fraction: 0.5 });
const EPOCH1 = progress(5, {
  epoch: 1,
  epochs: 2,
  step: 2,
  steps: 4,
  loss: 2.2,
  train_acc: 0.15,
  val_loss: 2.0,
  val_acc: 0.3,
  lr: 0.002,
  samples_per_s: 52,
  eta_s: 14,
  best_epoch: 1,
  fraction: 0.5,
});
const STEP3 = progress(7, { epoch: 2, epochs: 2, step: 3, steps: 4, loss: 1.8, train_acc: 0.4, lr: 0.001, samples_per_s: 60, eta_s: 6, fraction: 0.75 });

describe('TrainingMonitor', () => {
  it('polls with after=<last seq> and appends the new points to the curves', async () => {
    const batches = [[STEP1, STEP2], [EPOCH1], [], [STEP3]];
    let poll = 0;
    const server = fakeApi({
      'GET /api/v1/jobs/42/events/': () => json(page(batches[Math.min(poll++, batches.length - 1)] ?? [])),
    });
    const job = { id: 42, status: 'running' as const, progress: STEP2.data, result: null };
    renderWithApp(<TrainingMonitor job={job} />);

    await waitFor(() => expect(screen.getByTestId('curve-point-count')).toHaveAttribute('data-steps', '2'));
    expect(screen.getByTestId('curve-loss')).toHaveAttribute('data-points', '2');
    expect(screen.getByTestId('train-epoch')).toHaveTextContent('1/2');
    expect(screen.getByTestId('train-step')).toHaveTextContent('2/4');
    expect(screen.getByTestId('train-eta')).toHaveTextContent('15s');
    expect(screen.getByTestId('train-speed')).toHaveTextContent('55');

    await waitFor(() => expect(screen.getByTestId('curve-point-count')).toHaveAttribute('data-epochs', '1'), { timeout: 3000 });
    expect(screen.getByTestId('train-val-acc')).toHaveTextContent('30.0%');
    await waitFor(() => expect(screen.getByTestId('curve-point-count')).toHaveAttribute('data-steps', '3'), { timeout: 5000 });
    expect(screen.getByTestId('curve-loss')).toHaveAttribute('data-points', '4');

    const calls = server.callsTo('GET', '/api/v1/jobs/42/events/');
    expect(calls[0].search.get('type')).toBe('progress');
    expect(calls[0].search.get('after')).toBeNull();
    expect(calls[1].search.get('after')).toBe('4');
    expect(calls[2].search.get('after')).toBe('5');
    expect(calls[3].search.get('after')).toBe('5');
  }, 10_000);

  it('stops polling once the job has finished and links to its model version', async () => {
    const server = fakeApi({ 'GET /api/v1/jobs/42/events/': (call: RecordedCall) => json(page(call.search.get('after') ? [] : [STEP1, EPOCH1])) });
    const job = { id: 42, status: 'succeeded' as const, progress: { kind: 'progress' as const, version: 1 }, result: { kind: 'training_job_result' as const, version: 1, model_version: 9, name: 'V3', metrics: {} } };
    renderWithApp(<TrainingMonitor job={job} />);
    expect(await screen.findByTestId('training-model-link')).toHaveAttribute('href', '/model-versions/9');
    await waitFor(() => expect(screen.getByTestId('curve-point-count')).toHaveAttribute('data-epochs', '1'));
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(server.callsTo('GET', '/api/v1/jobs/42/events/')).toHaveLength(1);
    expect(screen.queryByTestId('training-live')).not.toBeInTheDocument();
  });
});

describe('toCurves', () => {
  it('tells step points from epoch ends and skips reports without a loss', () => {
    const exporting = progress(8, { epoch: 2, epochs: 2, step: 4, steps: 4, eta_s: 0, fraction: 1, message: 'exporting the model to ONNX' });
    const evaluating = progress(9, { evaluated: 10, total: 10, fraction: 1 });
    const curves = toCurves([STEP1, STEP2, EPOCH1, STEP3, exporting, evaluating]);
    expect(curves.steps.map((point) => point.seq)).toEqual([3, 4, 7]);
    expect(curves.epochs.map((point) => [point.epoch, point.val_acc])).toEqual([[1, 0.3]]);
  });

  it('keeps one point per epoch when a resumed attempt repeats its last epoch report', () => {
    const repeated = { ...EPOCH1, seq: 6 };
    const curves = toCurves([STEP1, STEP2, EPOCH1, repeated, STEP3]);
    expect(curves.epochs.map((point) => [point.epoch, point.seq])).toEqual([[1, 6]]);
  });

  it('says how many data-parallel processes the job trains with', async () => {
    fakeApi({ 'GET /api/v1/jobs/43/events/': () => json(page([STEP1])) });
    const job = { id: 43, status: 'running' as const, progress: STEP1.data, result: null, params: { kind: 'training.run', processes: 2 } };
    renderWithApp(<TrainingMonitor job={job as never} />);
    expect(await screen.findByTestId('training-processes-badge')).toHaveTextContent('2 processes (data-parallel)');
  });
});
