import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { i18n } from '@/i18n';
import { apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { Notebook } from '../api/notebooks';
import { DEFAULT_CPUS, DEFAULT_MEMORY_MB, NotebooksPanel } from './NotebooksPanel';

const LIST = '/api/v1/notebooks/';

function notebook(overrides: Partial<Notebook> = {}): Notebook {
  return {
    id: 5,
    project: 3,
    status: 'running',
    url: 'http://127.0.0.1:9100/notebooks/5/',
    open_url: 'http://127.0.0.1:9100/notebooks/5/lab?token=SECRET',
    idle_timeout_s: 3600,
    limits: { wall_time_s: 86400, memory_mb: 4096, cpus: 2 },
    started_at: '2026-12-05T10:00:00Z',
    last_activity_at: '2026-12-05T10:05:00Z',
    stopped_at: null,
    stop_reason: '',
    job: 77,
    created_at: '2026-12-05T09:59:00Z',
    ...overrides,
  };
}

describe('NotebooksPanel', () => {
  it('offers Start with default limits when the caller has no notebook, and explains what one gives', async () => {
    const server = fakeApi({ [`GET ${LIST}`]: page([]) });
    renderWithApp(<NotebooksPanel projectId={3} />);
    expect(await screen.findByTestId('notebook-start')).toBeEnabled();
    expect(screen.queryByTestId('notebook-card')).not.toBeInTheDocument();
    expect(screen.getByTestId('notebook-memory-mb')).toHaveValue(String(DEFAULT_MEMORY_MB));
    expect(screen.getByTestId('notebook-cpus')).toHaveValue(String(DEFAULT_CPUS));
    expect(screen.getByTestId('notebooks-intro')).toHaveTextContent('sampan.Client()');
    const [list] = server.callsTo('GET', LIST);
    expect(list.search.get('project')).toBe('3');
  });

  it('starts a notebook with the chosen limits, shows it starting with a spinner, then running with Open', async () => {
    let status: Notebook['status'] = 'starting';
    let started = false;
    const server = fakeApi({
      [`GET ${LIST}`]: () => {
        if (!started) return json(page([]));
        const current = status;
        status = 'running'; // the next poll finds it up
        return json(page([notebook(current === 'starting' ? { status: 'starting', open_url: null, started_at: null } : {})]));
      },
      [`POST ${LIST}`]: (call: RecordedCall) => {
        started = true;
        return json(notebook({ status: 'starting', open_url: null, started_at: null, ...(call.body as object) }), 201);
      },
    });
    const user = userEvent.setup();
    renderWithApp(<NotebooksPanel projectId={3} />);
    const memory = await screen.findByTestId('notebook-memory-mb');
    await user.clear(memory);
    await user.type(memory, '2048');
    const idle = screen.getByTestId('notebook-idle-minutes');
    await user.clear(idle);
    await user.type(idle, '15');
    await user.click(screen.getByTestId('notebook-start'));

    const [post] = server.callsTo('POST', LIST);
    expect(post.body).toEqual({ project: 3, idle_timeout_s: 900, limits: { memory_mb: 2048, cpus: DEFAULT_CPUS } });
    expect(await screen.findByTestId('notebook-status')).toHaveAttribute('data-status', 'starting');
    expect(screen.getByTestId('notebook-spinner')).toBeInTheDocument();
    expect(screen.queryByTestId('notebook-start')).not.toBeInTheDocument();

    await waitFor(() => expect(screen.getByTestId('notebook-status')).toHaveAttribute('data-status', 'running'), { timeout: 4000 });
    expect(screen.queryByTestId('notebook-spinner')).not.toBeInTheDocument();
    const open = screen.getByTestId('notebook-open');
    expect(open).toHaveAttribute('href', 'http://127.0.0.1:9100/notebooks/5/lab?token=SECRET');
    expect(open).toHaveAttribute('target', '_blank');
    expect(open).toHaveAttribute('rel', expect.stringContaining('noopener'));
  });

  it('shows the running notebook with its times and limits, and stops it', async () => {
    let current = notebook();
    const server = fakeApi({
      [`GET ${LIST}`]: () => json(page([current])),
      'POST /api/v1/notebooks/5/stop/': () => {
        current = notebook({ status: 'stopped', open_url: null, stopped_at: '2026-12-05T10:30:00Z', stop_reason: 'stopped by its owner' });
        return json(notebook({ status: 'stopping', open_url: null }));
      },
    });
    const user = userEvent.setup();
    renderWithApp(<NotebooksPanel projectId={3} />);
    expect(await screen.findByTestId('notebook-status')).toHaveAttribute('data-status', 'running');
    expect(screen.getByTestId('notebook-started')).not.toHaveTextContent('—');
    expect(screen.getByTestId('notebook-last-activity')).toHaveTextContent(/ago/);
    expect(screen.getByTestId('notebook-limits')).toHaveTextContent('4096 MiB, 2 CPUs');
    expect(screen.getByTestId('notebook-idle')).toHaveTextContent('1h 00');
    expect(screen.getByTestId('notebook-job-link')).toHaveAttribute('href', '/jobs/77');
    expect(screen.queryByTestId('notebook-start')).not.toBeInTheDocument();

    await user.click(screen.getByTestId('notebook-stop'));
    expect(server.callsTo('POST', '/api/v1/notebooks/5/stop/')).toHaveLength(1);
    await waitFor(() => expect(screen.getByTestId('notebook-status')).toHaveAttribute('data-status', 'stopped'), { timeout: 4000 });
    expect(screen.getByTestId('notebook-stop-reason')).toHaveTextContent('stopped by its owner');
    expect(screen.queryByTestId('notebook-open')).not.toBeInTheDocument();
    expect(screen.getByTestId('notebook-start')).toHaveTextContent('Start a new session');
  });

  it("starts the next session with the previous one's settings", async () => {
    const server = fakeApi({
      [`GET ${LIST}`]: page([notebook({ status: 'stopped', open_url: null, idle_timeout_s: 1800, limits: { wall_time_s: 86400, memory_mb: 1024, cpus: 1 } })]),
      [`POST ${LIST}`]: () => json(notebook({ status: 'starting', open_url: null }), 201),
    });
    const user = userEvent.setup();
    renderWithApp(<NotebooksPanel projectId={3} />);
    expect(await screen.findByTestId('notebook-memory-mb')).toHaveValue('1024');
    expect(screen.getByTestId('notebook-idle-minutes')).toHaveValue('30');
    expect(screen.getByTestId('notebook-limits')).toHaveTextContent(/^1024 MiB, 1 CPU$/);
    await user.click(screen.getByTestId('notebook-start'));
    await waitFor(() => expect(server.callsTo('POST', LIST)).toHaveLength(1));
    expect(server.callsTo('POST', LIST)[0].body).toEqual({ project: 3, idle_timeout_s: 1800, limits: { memory_mb: 1024, cpus: 1 } });
  });

  it('shows why a notebook failed and lets the user start another', async () => {
    fakeApi({
      [`GET ${LIST}`]: page([notebook({ status: 'failed', open_url: null, stop_reason: 'the server did not answer within 120 s' })]),
    });
    renderWithApp(<NotebooksPanel projectId={3} />);
    expect(await screen.findByTestId('notebook-status')).toHaveAttribute('data-status', 'failed');
    expect(screen.getByTestId('notebook-stop-reason')).toHaveTextContent('did not answer within 120 s');
    expect(screen.getByTestId('notebook-start')).toBeEnabled();
  });

  it("names the server's reason when starting is refused, and keeps the form", async () => {
    fakeApi({
      [`GET ${LIST}`]: page([]),
      [`POST ${LIST}`]: () => apiError(400, 'custom_job_limit_too_high', 'memory_mb 999999 is above the cap of 65536 MiB.'),
    });
    const user = userEvent.setup();
    renderWithApp(<NotebooksPanel projectId={3} />);
    await user.click(await screen.findByTestId('notebook-start'));
    expect(await screen.findByTestId('notebook-start-error')).toHaveTextContent('above the cap of 65536 MiB');
    expect(screen.queryByTestId('notebook-card')).not.toBeInTheDocument();
  });

  it('refuses to start with an empty field, and viewers cannot start or stop', async () => {
    fakeApi({ [`GET ${LIST}`]: page([]) });
    const user = userEvent.setup();
    const { unmount } = renderWithApp(<NotebooksPanel projectId={3} />);
    await user.clear(await screen.findByTestId('notebook-cpus'));
    expect(screen.getByTestId('notebook-start')).toBeDisabled();
    unmount();

    fakeApi({ [`GET ${LIST}`]: page([notebook()]) });
    renderWithApp(<NotebooksPanel projectId={3} canEdit={false} />);
    expect(await screen.findByTestId('notebook-stop')).toBeDisabled();
    expect(screen.getByTestId('notebook-open')).not.toHaveAttribute('data-disabled');
  });

  it('reads in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi({ [`GET ${LIST}`]: page([notebook({ status: 'starting', open_url: null, started_at: null })]) });
    renderWithApp(<NotebooksPanel projectId={3} />);
    expect(await screen.findByTestId('notebook-status')).toHaveTextContent('启动中');
    expect(screen.getByText('正在启动服务器，需要几秒钟…')).toBeInTheDocument();
    expect(screen.getByTestId('notebook-stop')).toHaveTextContent('停止');
    expect(screen.getByTestId('notebook-limits')).toHaveTextContent('4096 MiB，2 个 CPU');
    expect(screen.getByTestId('notebooks-intro')).toHaveTextContent('sampan.Client()');
  });
});
