import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { VersionsPanel } from './VersionsPanel';

const VERSION = {
  id: 9,
  name: 'V1',
  number: 1,
  train_ratio: 0.8,
  val_ratio: 0.1,
  test_ratio: 0.1,
  seed: 7,
  note: '',
  reviewed_only: false,
  classes: ['a', 'b'],
  counts: { train: { a: 40000, b: 40000 }, val: { a: 5000, b: 5000 }, test: { a: 5000, b: 5000 } },
  totals: { train: 80000, val: 10000, test: 10000 },
  sample_count: 100000,
  unlabeled_excluded: 0,
  created_at: '2026-12-05T00:00:00Z',
};

function job(status: string, progress: object, result: object | null = null) {
  return {
    id: 31,
    workspace: 1,
    project: 1,
    kind: 'datasets.version',
    params: { kind: 'datasets.version', version: 1, dataset: 3, seed: 7, samples: 100000 },
    status,
    queue: 'cpu',
    attempt: 1,
    max_attempts: 3,
    lease_owner: '',
    heartbeat_at: null,
    cancel_requested: false,
    preempt_requested: false,
    progress: { kind: 'progress', version: 1, ...progress },
    result,
    error: '',
    created_by: 'alice',
    created_at: '2026-12-05T00:00:00Z',
    enqueued_at: '2026-12-05T00:00:00Z',
    started_at: null,
    finished_at: null,
    retryable: false,
    queue_state: null,
    my_role: 'owner',
  };
}

describe('a large dataset version made by a job', () => {
  it('shows the running job with a live progress bar, then the new version', async () => {
    const versions: object[] = [];
    let polls = 0;
    fakeApi({
      'GET /api/v1/datasets/3/versions/': () => json(page(versions)),
      'POST /api/v1/datasets/3/versions/': () => json(job('queued', {}), 202),
      'GET /api/v1/jobs/31/': () => {
        polls += 1;
        if (polls === 1) return json(job('running', { fraction: 0.4, processed: 40000, total: 100000, eta_s: 12.3 }));
        versions.push(VERSION);
        return json(job('succeeded', { fraction: 1, processed: 100000, total: 100000 }, { kind: 'dataset_version_result', version: 1, dataset_version: 9, number: 1, sample_count: 100000 }));
      },
    });
    const user = userEvent.setup();
    renderWithApp(<VersionsPanel datasetId={3} canEdit />);
    await screen.findByTestId('versions-empty');
    await user.click(screen.getByTestId('version-create-submit'));
    const bar = await screen.findByTestId('dataset-job-progress');
    await waitFor(() => expect(bar).toHaveAttribute('data-value', '40'));
    expect(screen.getByTestId('dataset-job-counts')).toHaveTextContent('40,000 of 100,000 samples');
    expect(screen.getByTestId('dataset-job-counts')).toHaveTextContent('13 s left');
    await waitFor(() => expect(screen.getByTestId('dataset-job')).toHaveAttribute('data-status', 'succeeded'), { timeout: 4000 });
    expect(screen.getByTestId('dataset-job-progress')).toHaveAttribute('data-value', '100');
    expect(await screen.findByText('V1')).toBeInTheDocument();
  });
});
