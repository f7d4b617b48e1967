import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { ProgressEvent } from '../../api/trainingJobs';
import { TrainingMonitor } from '../TrainingMonitor';
import { toCurves } from '../trainingCurves';

function progress(seq: number, fields: Omit<ProgressEvent, 'kind' | 'version'>) {
  const data: ProgressEvent = { kind: 'progress', version: 1, ...fields };
  return { seq, at: '2026-12-04T10:00:00Z', type: 'progress' as const, message: '', data };
}

// a detector reports loss per step and val_loss + val_map50 at each epoch's end (no accuracy)
const STEP = progress(3, { epoch: 1, epochs: 2, step: 1, steps: 2, loss: 5.1, lr: 0.004, samples_per_s: 20, eta_s: 9 });
const EPOCH1 = progress(4, { epoch: 1, epochs: 2, step: 2, steps: 4, loss: 4.8, val_loss: 4.9, val_map50: 0.42, best_epoch: 1 });
const EPOCH2 = progress(6, { epoch: 2, epochs: 2, step: 4, steps: 4, loss: 3.9, val_loss: 4.1, val_map50: 0.37, best_epoch: 1 });

describe("a detector's training monitor", () => {
  it('shows validation mAP@.5 where a classifier shows accuracy', async () => {
    fakeApi({ 'GET /api/v1/jobs/7/events/': (call: RecordedCall) => json(page(call.search.get('after') ? [] : [STEP, EPOCH1, EPOCH2])) });
    const job = { id: 7, status: 'succeeded' as const, progress: { kind: 'progress' as const, version: 1 }, result: null };
    renderWithApp(<TrainingMonitor job={job} />);
    await waitFor(() => expect(screen.getByTestId('curve-point-count')).toHaveAttribute('data-epochs', '2'));
    expect(screen.getByTestId('train-val-acc')).toHaveTextContent('37.0%');
    expect(screen.getByTestId('train-best-val-acc')).toHaveTextContent('42.0%');
    expect(screen.getByText('Best val mAP@.5')).toBeInTheDocument();
    expect(screen.getByTestId('curve-accuracy')).toHaveAttribute('data-points', '2');
    expect(toCurves([STEP, EPOCH1]).epochs.map((point) => point.val_map50)).toEqual([0.42]);
  });
});
