import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { JobDetail } from './JobDetail';

const FINISHED = {
  id: 5,
  workspace: 1,
  project: null,
  kind: 'system.check',
  status: 'succeeded',
  queue: 'cpu',
  attempt: 1,
  max_attempts: 3,
  lease_owner: 'worker-a',
  heartbeat_at: '2026-11-29T10:00:03Z',
  params: { kind: 'system.check', version: 1, seconds: 2 },
  progress: { fraction: 1, message: 'done' },
  result: {
    kind: 'system_check_result',
    version: 1,
    versions: { python: '3.12.1', torch: '2.5.0' },
    devices: { cuda_available: false, cpu_count: 2 },
    computation: { matmul_checksum: 12.5, ok: true },
  },
  error: '',
  cancel_requested: false,
  created_by: 'admin',
  created_at: '2026-11-29T10:00:00Z',
  enqueued_at: '2026-11-29T10:00:00Z',
  started_at: '2026-11-29T10:00:01Z',
  finished_at: '2026-11-29T10:00:03Z',
  preempt_requested: false,
  retryable: false,
};

describe('JobDetail', () => {
  it('shows status, attempt, the result sections and the event log', async () => {
    fakeApi({
      'GET /api/v1/jobs/5/': FINISHED,
      'GET /api/v1/job-kinds/': [{ name: 'system.check', title: 'System check', description: 'Versions, devices and a small computation', prefers_gpu: false }],
      'GET /api/v1/jobs/5/events/': page([
        { seq: 1, at: '2026-11-29T10:00:01Z', type: 'status', message: 'running', data: {} },
        { seq: 2, at: '2026-11-29T10:00:02Z', type: 'progress', message: 'step 1', data: { fraction: 0.5 } },
        { seq: 3, at: '2026-11-29T10:00:03Z', type: 'status', message: 'succeeded', data: {} },
      ]),
    });
    renderWithApp(<JobDetail jobId={5} />);

    expect(await screen.findByTestId('job-detail-status')).toHaveTextContent('succeeded');
    expect(screen.getByText('Job #5 · System check')).toBeInTheDocument();
    expect(screen.getByTestId('job-detail-attempt')).toHaveTextContent('1/3');
    expect(screen.getByTestId('job-result-versions')).toHaveTextContent('torch');
    expect(screen.getByTestId('job-result-versions')).toHaveTextContent('2.5.0');
    expect(screen.getByTestId('job-result-computation')).toHaveTextContent('12.5');
    expect(screen.getByTestId('job-result-devices')).toHaveTextContent('cuda_available');
    expect(screen.queryByTestId('job-result-kind')).not.toBeInTheDocument(); // the envelope is no section
    expect(screen.queryByTestId('job-error')).not.toBeInTheDocument();
    expect(screen.queryByTestId('job-cancel-5')).not.toBeInTheDocument();

    await userEvent.setup().click(screen.getByRole('tab', { name: 'Events' }));
    const log = await screen.findByTestId('job-events');
    expect(log).toHaveTextContent('step 1');
    expect(log).toHaveTextContent('succeeded');
  });

  it('shows the error text of a failed job', async () => {
    fakeApi({
      'GET /api/v1/jobs/5/': { ...FINISHED, status: 'failed', result: null, error: 'RuntimeError: no device' },
      'GET /api/v1/job-kinds/': [],
    });
    renderWithApp(<JobDetail jobId={5} />);
    expect(await screen.findByTestId('job-error')).toHaveTextContent('RuntimeError: no device');
    expect(screen.getByTestId('job-detail-status')).toHaveTextContent('failed');
    expect(screen.queryByTestId('job-retry-5')).not.toBeInTheDocument();
  });

  it('retries a failed job the server marks retryable, with an idempotency key', async () => {
    const failed = { ...FINISHED, kind: 'training.run', status: 'failed', result: null, retryable: true,
      error: 'OSError: [Errno 28] No space left on device while writing checkpoint epoch-0003-step-000000012.pt' };
    let current: Record<string, unknown> = failed;
    const calls = fakeApi({
      'GET /api/v1/jobs/5/': () => json(current),
      'GET /api/v1/job-kinds/': [],
      'GET /api/v1/jobs/5/events/': page([]),
      'POST /api/v1/jobs/5/retry/': () => {
        current = { ...failed, status: 'queued', error: '', attempt: 0, retryable: false, finished_at: null };
        return json(current);
      },
    });
    renderWithApp(<JobDetail jobId={5} />);
    expect(await screen.findByTestId('job-error')).toHaveTextContent('No space left on device');
    await userEvent.setup().click(screen.getByTestId('job-retry-5'));
    expect(await screen.findByTestId('job-detail-status')).toHaveTextContent('queued');
    await waitFor(() => expect(screen.queryByTestId('job-retry-5')).not.toBeInTheDocument());
    const [retry] = calls.callsTo('POST', '/api/v1/jobs/5/retry/');
    expect(retry?.path).toBe('/api/v1/jobs/5/retry/');
    expect(retry?.headers.get('Idempotency-Key')).toMatch(/^retry-5-/);
  });

  it('says why a queued job waits: its place in the queue and which worker runs which job', async () => {
    const queued = {
      ...FINISHED,
      status: 'queued',
      queue: 'gpu',
      result: null,
      started_at: null,
      finished_at: null,
      progress: {},
      my_role: 'editor',
      queue_state: {
        queue: 'gpu',
        position: 3,
        ahead: 2,
        reason: 'workers_busy',
        workers: 1,
        slots: 1,
        busy_with: [
          { worker: 'gpu-1@host', job_id: 41, kind: 'training.run' },
          { worker: 'gpu-1@host', job_id: null, kind: 'training.run' },
        ],
      },
    };
    fakeApi({ 'GET /api/v1/jobs/5/': queued, 'GET /api/v1/job-kinds/': [], 'GET /api/v1/jobs/5/events/': page([]) });
    renderWithApp(<JobDetail jobId={5} />);
    expect(await screen.findByTestId('job-queue-position')).toHaveTextContent('Position 3 in the gpu queue · 2 jobs ahead of it');
    expect(screen.getByTestId('job-queue-reason')).toHaveTextContent('Every worker for the gpu queue is busy.');
    const busy = screen.getByTestId('job-queue-busy');
    expect(busy).toHaveTextContent('gpu-1@host is busy with job #41');
    expect(busy).toHaveTextContent('gpu-1@host is busy with a job of another workspace');
    expect(screen.getByRole('link', { name: 'gpu-1@host is busy with job #41' })).toHaveAttribute('href', '/jobs/41');
  });

  it('says when no worker is online for the queue, in Chinese too', async () => {
    await i18n.changeLanguage('zh-CN');
    const queued = {
      ...FINISHED,
      status: 'queued',
      result: null,
      my_role: 'editor',
      queue_state: { queue: 'gpu', position: 1, ahead: 0, reason: 'no_worker', workers: 0, slots: 0, busy_with: [] },
    };
    fakeApi({ 'GET /api/v1/jobs/5/': queued, 'GET /api/v1/job-kinds/': [], 'GET /api/v1/jobs/5/events/': page([]) });
    renderWithApp(<JobDetail jobId={5} />);
    expect(await screen.findByTestId('job-queue-reason')).toHaveTextContent('gpu 队列目前没有在线的计算节点：有节点上线后任务才会开始。');
    expect(screen.getByTestId('job-queue-position')).toHaveTextContent('在 gpu 队列中排第 1 位 · 前面没有任务');
    expect(screen.getByTestId('job-detail-status')).toHaveTextContent('排队中');
    expect(screen.getByTestId('job-cancel-5')).toHaveTextContent('取消');
  });

  it('a viewer cannot cancel or retry: the buttons are disabled and say why', async () => {
    const failed = { ...FINISHED, status: 'failed', result: null, retryable: true, my_role: 'viewer' };
    const calls = fakeApi({ 'GET /api/v1/jobs/5/': failed, 'GET /api/v1/job-kinds/': [], 'GET /api/v1/jobs/5/events/': page([]) });
    renderWithApp(<JobDetail jobId={5} />);
    const retry = await screen.findByTestId('job-retry-5');
    expect(retry).toBeDisabled();
    const holder = retry.closest('[data-disabled-reason]') as HTMLElement;
    expect(holder).toHaveAttribute('data-disabled-reason', expect.stringContaining('Viewers cannot cancel or retry jobs'));
    expect(holder).not.toHaveAccessibleDescription(/Viewers cannot/);
    act(() => holder.focus()); // the reason's holder takes the keyboard focus and shows it as a tooltip
    // the tooltip is the holder's description; not findByRole('tooltip'): jsdom lays nothing out, so once
    // floating-ui positions it, its hide middleware reads the 0x0 holder as hidden (display: none)
    await waitFor(() => expect(holder).toHaveAccessibleDescription(/Viewers cannot cancel or retry jobs/));
    expect(screen.getByRole('tooltip', { hidden: true })).toHaveTextContent('Viewers cannot cancel or retry jobs');
    expect(calls.callsTo('POST', '/api/v1/jobs/5/retry/')).toHaveLength(0);
  });
});
