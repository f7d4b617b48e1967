import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithApp } from '@/test/render';
import type { QueueState } from '../api/jobs';
import { QueueStateShort, QueueStateView } from './QueueStateView';

const AT_LIMIT: QueueState = {
  queue: 'gpu',
  position: 3,
  ahead: 2,
  reason: 'workspace_limit',
  workers: 1,
  slots: 1,
  busy_with: [],
  workspace_limit: { scope: 'gpu_jobs', running: 2, limit: 2 },
};

describe('QueueStateView', () => {
  it("says the job waits for its workspace's limit, with the numbers", async () => {
    renderWithApp(<QueueStateView state={AT_LIMIT} />);
    expect(await screen.findByTestId('job-queue-reason')).toHaveTextContent(
      'This workspace already runs 2 of its 2 GPU jobs at once',
    );
  });

  it('says it in one line for a table', async () => {
    renderWithApp(<QueueStateShort jobId={5} state={{ ...AT_LIMIT, workspace_limit: { scope: 'jobs', running: 4, limit: 4 } }} />);
    expect(await screen.findByTestId('job-wait-5')).toHaveTextContent('workspace limit 4/4');
  });
});
