import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { JobsPanel } from './JobsPanel';

type JobFixture = Record<string, unknown> & { id: number; status: string };

function job(overrides: Partial<JobFixture> & { id: number }): JobFixture {
  return {
    workspace: 3,
    project: 4,
    kind: 'system.check',
    status: 'queued',
    queue: 'cpu',
    attempt: 0,
    max_attempts: 3,
    lease_owner: '',
    heartbeat_at: null,
    params: {},
    progress: {},
    result: null,
    error: '',
    cancel_requested: false,
    created_by: 'admin',
    created_at: '2026-11-29T10:00:00Z',
    enqueued_at: '2026-11-29T10:00:00Z',
    started_at: null,
    finished_at: null,
    ...overrides,
  };
}

const KINDS = [{ name: 'system.check', title: 'System check', description: 'Checks the worker', prefers_gpu: false }];

describe('JobsPanel', () => {
  it('renders status badges, progress and attempts from the data', async () => {
    fakeApi({
      'GET /api/v1/job-kinds/': KINDS,
      'GET /api/v1/jobs/': page([
        job({ id: 11, status: 'failed', attempt: 3, error: 'boom', finished_at: '2026-11-29T10:05:00Z', progress: { fraction: 0.4 } }),
        job({ id: 12, status: 'succeeded', attempt: 1, progress: { step: 5, total: 5 }, finished_at: '2026-11-29T10:01:00Z' }),
      ]),
    });
    renderWithApp(<JobsPanel workspaceId={3} projectId={4} />);

    expect(await screen.findByTestId('job-status-11')).toHaveTextContent('failed');
    expect(screen.getByTestId('job-status-12')).toHaveTextContent('succeeded');
    expect(screen.getByTestId('job-progress-11')).toHaveAttribute('data-value', '40');
    expect(screen.getByTestId('job-progress-12')).toHaveAttribute('data-value', '100');
    expect(screen.getByTestId('job-attempt-11')).toHaveTextContent('3/3');
    expect(screen.getByTestId('job-attempt-12')).toHaveTextContent('1/3');
    expect(within(screen.getByTestId('job-row-12')).getByText('System check')).toBeInTheDocument();
    // Nothing is active, so nothing polls and no cancel button is offered.
    expect(screen.queryByTestId('jobs-live')).not.toBeInTheDocument();
    expect(screen.queryByTestId('job-cancel-11')).not.toBeInTheDocument();
  });

  it('filters the list by the workspace and project it is given', async () => {
    const server = fakeApi({ 'GET /api/v1/job-kinds/': KINDS, 'GET /api/v1/jobs/': page([]) });
    renderWithApp(<JobsPanel workspaceId={3} projectId={4} />);
    expect(await screen.findByTestId('jobs-empty')).toBeInTheDocument();
    const [call] = server.callsTo('GET', '/api/v1/jobs/');
    expect(call.search.get('workspace')).toBe('3');
    expect(call.search.get('project')).toBe('4');
  });

  it('updates live while a job runs and stops polling once it finishes', async () => {
    let polls = 0;
    const states = [
      job({ id: 21, status: 'queued' }),
      job({ id: 21, status: 'running', attempt: 1, progress: { fraction: 0.5, message: 'half way' } }),
      job({ id: 21, status: 'succeeded', attempt: 1, progress: { fraction: 1 }, finished_at: '2026-11-29T10:00:03Z' }),
    ];
    const server = fakeApi({
      'GET /api/v1/job-kinds/': KINDS,
      'GET /api/v1/jobs/': () => json(page([states[Math.min(polls++, states.length - 1)]])),
    });
    renderWithApp(<JobsPanel workspaceId={3} />);

    expect(await screen.findByTestId('job-status-21')).toHaveTextContent('queued');
    expect(screen.getByTestId('jobs-live')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('job-status-21')).toHaveTextContent('running'), { timeout: 3000 });
    expect(screen.getByTestId('job-progress-21')).toHaveAttribute('data-value', '50');
    await waitFor(() => expect(screen.getByTestId('job-status-21')).toHaveTextContent('succeeded'), { timeout: 3000 });

    const settled = server.callsTo('GET', '/api/v1/jobs/').length;
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(server.callsTo('GET', '/api/v1/jobs/').length).toBe(settled);
    expect(screen.queryByTestId('jobs-live')).not.toBeInTheDocument();
  });

  it('runs a system check in its workspace and project and shows the new job', async () => {
    document.cookie = 'csrftoken=tok; path=/';
    let created: JobFixture | null = null;
    const server = fakeApi({
      'GET /api/v1/job-kinds/': KINDS,
      'GET /api/v1/jobs/': () => json(page(created ? [created] : [])),
      'POST /api/v1/jobs/': (call: RecordedCall) => {
        created = job({ id: 31, ...(call.body as object) });
        return json(created, 201);
      },
    });
    renderWithApp(<JobsPanel workspaceId={3} projectId={4} />);
    await screen.findByTestId('jobs-empty');

    await userEvent.setup().click(screen.getByTestId('run-system-check'));

    expect(await screen.findByTestId('job-status-31')).toHaveTextContent('queued');
    const [post] = server.callsTo('POST', '/api/v1/jobs/');
    expect(post.body).toEqual({ workspace: 3, project: 4, kind: 'system.check', params: {} });
    expect(post.headers.get('X-CSRFToken')).toBe('tok');
  });

  it('cannot run a check without a workspace', async () => {
    fakeApi({ 'GET /api/v1/job-kinds/': KINDS, 'GET /api/v1/jobs/': page([]) });
    renderWithApp(<JobsPanel />);
    await screen.findByTestId('jobs-empty');
    expect(screen.getByTestId('run-system-check')).toBeDisabled();
  });

  it('cancels a running job', async () => {
    let cancelled = false;
    const server = fakeApi({
      'GET /api/v1/job-kinds/': KINDS,
      'GET /api/v1/jobs/': () => json(page([job({ id: 41, status: 'running', attempt: 1, cancel_requested: cancelled })])),
      'POST /api/v1/jobs/41/cancel/': () => {
        cancelled = true;
        return json(job({ id: 41, status: 'running', attempt: 1, cancel_requested: true }));
      },
    });
    renderWithApp(<JobsPanel workspaceId={3} />);
    await userEvent.setup().click(await screen.findByTestId('job-cancel-41'));
    await waitFor(() => expect(screen.getByTestId('job-cancel-41')).toHaveTextContent('Cancelling'));
    expect(server.callsTo('POST', '/api/v1/jobs/41/cancel/')).toHaveLength(1);
  });
});
