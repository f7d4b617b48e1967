import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ADMIN, apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { AppRoutes } from './AppRoutes';

const WORKSPACE = { id: 7, name: 'Vision team', description: 'Cats and dogs', role: 'owner', member_count: 2, created_at: '2026-01-02T03:04:05Z' };

describe('routing and session handling', () => {
  it('sends a visitor without a session to the login page, then back where they were going', async () => {
    let loggedIn = false;
    document.cookie = 'csrftoken=tok; path=/';
    fakeApi({
      'GET /api/v1/auth/me/': () => (loggedIn ? json(ADMIN) : apiError(403, 'not_authenticated', 'Authentication credentials were not provided.')),
      'POST /api/v1/auth/login/': () => {
        loggedIn = true;
        return json(ADMIN);
      },
      'GET /api/v1/workspaces/': json(page([WORKSPACE])),
      'GET /api/v1/workers/': json([]),
      'GET /api/v1/tokens/': json(page([])),
    });
    renderWithApp(<AppRoutes />, { route: '/tokens' });

    expect(await screen.findByTestId('login-form')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(screen.getByTestId('login-username'), 'admin');
    await user.type(screen.getByTestId('login-password'), 'pw');
    await user.click(screen.getByTestId('login-submit'));

    expect(await screen.findByTestId('tokens-empty')).toBeInTheDocument();
    expect(screen.getByTestId('nav-api-docs')).toHaveAttribute('href', '/api/docs/');
  });

  it('goes to /login when an API call answers 401 in the middle of a session', async () => {
    fakeApi({
      'GET /api/v1/auth/me/': json(ADMIN),
      'GET /api/v1/workspaces/': () => apiError(401, 'not_authenticated', 'Session expired.'),
      'GET /api/v1/workers/': json([]),
    });
    renderWithApp(<AppRoutes />, { route: '/workspaces' });
    expect(await screen.findByTestId('login-form')).toBeInTheDocument();
  });

  it('logs out from the user menu and lands on the login page', async () => {
    let loggedIn = true;
    const server = fakeApi({
      'GET /api/v1/auth/me/': () => (loggedIn ? json(ADMIN) : apiError(401, 'not_authenticated', 'Not signed in.')),
      'POST /api/v1/auth/logout/': () => {
        loggedIn = false;
        return new Response(null, { status: 204 });
      },
      'GET /api/v1/workspaces/': json(page([WORKSPACE])),
      'GET /api/v1/workers/': json([]),
    });
    renderWithApp(<AppRoutes />, { route: '/workspaces' });
    expect(await screen.findByTestId('workspace-link-7')).toHaveTextContent('Vision team');
    const user = userEvent.setup();
    await user.click(screen.getByTestId('user-menu'));
    await user.click(await screen.findByTestId('logout'));
    expect(await screen.findByTestId('login-form')).toBeInTheDocument();
    expect(server.callsTo('POST', '/api/v1/auth/logout/')).toHaveLength(1);
    expect(screen.queryByText('Vision team')).not.toBeInTheDocument();
  });

  it("shows a project with its own jobs, and a viewer cannot run checks there", async () => {
    const server = fakeApi({
      'GET /api/v1/auth/me/': json(ADMIN),
      'GET /api/v1/workers/': json([]),
      'GET /api/v1/projects/4/': json({ id: 4, workspace: 7, name: 'Pets', description: 'classify pets', created_at: '2026-01-02T03:04:05Z', created_by: 'alice' }),
      'GET /api/v1/workspaces/7/': json({ ...WORKSPACE, role: 'viewer' }),
      'GET /api/v1/job-kinds/': json([]),
      'GET /api/v1/jobs/': json(page([])),
    });
    renderWithApp(<AppRoutes />, { route: '/projects/4/jobs' });
    expect(await screen.findByTestId('project-title')).toHaveTextContent('Pets');
    expect(await screen.findByText('Vision team')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('run-system-check')).toBeDisabled());
    const jobsCall = server.callsTo('GET', '/api/v1/jobs/')[0];
    expect(jobsCall.search.get('project')).toBe('4');
    expect(jobsCall.search.get('workspace')).toBe('7');
  });

  it('lists a project\'s datasets on its first tab and opens the labeler from a report with the picked samples', async () => {
    fakeApi({
      'GET /api/v1/auth/me/': json(ADMIN),
      'GET /api/v1/workers/': json([]),
      'GET /api/v1/projects/4/': json({ id: 4, workspace: 7, name: 'Pets', description: '', created_at: '2026-01-02T03:04:05Z', created_by: 'alice' }),
      'GET /api/v1/workspaces/7/': json(WORKSPACE),
      'GET /api/v1/datasets/': json(
        page([{ id: 3, workspace: 7, project: 4, name: 'photos', description: '', task_type: 'image_classification', sample_count: 10, labeled_count: 4, label_count: 2, created_by: 'alice', created_at: '2026-01-02T03:04:05Z' }]),
      ),
      'GET /api/v1/datasets/3/': json({ id: 3, workspace: 7, project: 4, name: 'photos', description: '', task_type: 'image_classification', sample_count: 10, labeled_count: 4, label_count: 2, created_by: 'alice', created_at: '2026-01-02T03:04:05Z' }),
      'GET /api/v1/datasets/3/versions/': json(page([])),
      'GET /api/v1/datasets/3/labels/': json(page([])),
      'GET /api/v1/datasets/3/samples/': (call: RecordedCall) =>
        json({
          count: call.search.get('ids') === '5' ? 1 : 0,
          next: null,
          previous: null,
          counts: { total: 10, labeled: 4, unlabeled: 6, per_label: [] },
          results:
            call.search.get('ids') === '5'
              ? [{ id: 5, original_name: 'five.png', label: null, label_name: null, label_version: 0, width: 8, height: 8, format: 'PNG', size_bytes: 1, sha256: 'a', split: null, image_url: '/i/5', thumbnail_url: '/t/5', import_batch: null, created_at: '2026-01-02T03:04:05Z' }]
              : [],
        }),
    });
    const { unmount } = renderWithApp(<AppRoutes />, { route: '/projects/4' });
    expect(await screen.findByTestId('dataset-link-3')).toHaveAttribute('href', '/datasets/3');
    expect(screen.getByTestId('dataset-row-3')).toHaveTextContent('4 / 10');
    unmount();

    renderWithApp(<AppRoutes />, { route: '/datasets/3/label?samples=5' });
    expect(await screen.findByTestId('labeling-sample-filter')).toHaveTextContent('Showing 1 picked sample');
    expect(await screen.findByTestId('sample-tile-5')).toBeInTheDocument();
    expect(screen.getByTestId('dataset-export')).toHaveAttribute('href', '/api/v1/datasets/3/export/');
  });

  it('shows a not-found page for unknown client routes', async () => {
    fakeApi({ 'GET /api/v1/auth/me/': json(ADMIN) });
    renderWithApp(<AppRoutes />, { route: '/no/such/page' });
    expect(await screen.findByTestId('not-found')).toHaveTextContent('This page does not exist');
  });

  it('shows not-found for a workspace the API answers 404 for', async () => {
    fakeApi({
      'GET /api/v1/auth/me/': json(ADMIN),
      'GET /api/v1/workers/': json([{ hostname: 'w1', queues: ['cpu'], devices: {}, last_seen: '2026-01-01T00:00:00Z', alive: true }]),
      'GET /api/v1/workspaces/999/': () => apiError(404, 'not_found', 'Not found.'),
    });
    renderWithApp(<AppRoutes />, { route: '/workspaces/999' });
    expect(await screen.findByTestId('not-found')).toHaveTextContent('This workspace does not exist');
    await waitFor(() => expect(screen.getByTestId('workers-indicator')).toHaveTextContent('1 worker online'));
  });
});
