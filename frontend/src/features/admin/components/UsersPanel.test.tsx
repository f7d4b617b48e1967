import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { UsersRoute } from '@/app/routes/UsersRoute';
import { i18n } from '@/i18n';
import { apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { UsersPanel } from './UsersPanel';

const user = (id: number, username: string, fields: Record<string, unknown> = {}) => ({
  id,
  username,
  email: `${username}@example.com`,
  is_staff: false,
  is_active: true,
  date_joined: '2026-11-01T00:00:00Z',
  last_login: null,
  ...fields,
});
const ROOT = user(1, 'root', { is_staff: true });

describe('UsersPanel', () => {
  it('lists users; the only admin cannot deactivate or demote themselves, and says why', async () => {
    fakeApi({ 'GET /api/v1/users/': page([ROOT, user(2, 'mei'), user(3, 'old', { is_active: false })]) });
    renderWithApp(<UsersPanel meId={1} />);
    expect(await screen.findByTestId('user-row-1')).toHaveTextContent('root');
    expect(screen.getByTestId('user-role-1')).toHaveTextContent('Administrator');
    expect(screen.getByTestId('user-status-3')).toHaveTextContent('Deactivated');
    expect(screen.getByTestId('user-deactivate-1')).toBeDisabled();
    expect(screen.getByTestId('user-remove-admin-1')).toBeDisabled();
    expect(screen.getByTestId('user-deactivate-1').closest('[data-disabled-reason]')).toHaveAttribute(
      'data-disabled-reason',
      'The last active administrator must stay one; make another user an administrator first.',
    );
    expect(screen.getByTestId('user-deactivate-2')).toBeEnabled();
    expect(screen.getByTestId('user-make-admin-3')).toBeDisabled();
    expect(screen.getByTestId('user-reactivate-3')).toBeEnabled();
  });

  it('with two admins, still not oneself', async () => {
    fakeApi({ 'GET /api/v1/users/': page([ROOT, user(2, 'li', { is_staff: true })]) });
    renderWithApp(<UsersPanel meId={1} />);
    expect(await screen.findByTestId('user-remove-admin-2')).toBeEnabled();
    expect(screen.getByTestId('user-deactivate-1').closest('[data-disabled-reason]')).toHaveAttribute(
      'data-disabled-reason',
      'You cannot deactivate your own account.',
    );
  });

  it('creates a user, an administrator or not', async () => {
    const users = [ROOT];
    const server = fakeApi({
      'GET /api/v1/users/': () => json(page(users)),
      'POST /api/v1/users/': (call: RecordedCall) => {
        const body = call.body as { username: string; is_staff: boolean };
        const created = user(5, body.username, { is_staff: body.is_staff });
        users.push(created);
        return json(created, 201);
      },
    });
    const actor = userEvent.setup();
    renderWithApp(<UsersPanel meId={1} />);
    await actor.click(await screen.findByTestId('create-user'));
    await actor.type(await screen.findByTestId('user-username-input'), 'mei');
    await actor.type(screen.getByTestId('user-password-input'), 'a-long-passphrase-1');
    await actor.click(screen.getByTestId('user-admin-input'));
    await actor.click(screen.getByTestId('user-create-submit'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/users/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/users/')[0].body).toEqual({
      username: 'mei',
      email: '',
      password: 'a-long-passphrase-1',
      is_staff: true,
    });
    expect(await screen.findByTestId('user-row-5')).toHaveTextContent('Administrator');
  });

  it('keeps the dialog open with the refusal of a weak password', async () => {
    fakeApi({
      'GET /api/v1/users/': page([ROOT]),
      'POST /api/v1/users/': () =>
        apiError(400, 'password_too_weak', 'password: This password is too common.', { password: ['This password is too common.'] }),
    });
    const actor = userEvent.setup();
    renderWithApp(<UsersPanel meId={1} />);
    await actor.click(await screen.findByTestId('create-user'));
    await actor.type(await screen.findByTestId('user-username-input'), 'mei');
    await actor.type(screen.getByTestId('user-password-input'), 'password');
    await actor.click(screen.getByTestId('user-create-submit'));
    expect(await screen.findByTestId('create-user-error')).toHaveTextContent('This password is too common.');
    expect(screen.getByTestId('user-username-input')).toHaveValue('mei');
  });

  it('deactivates after confirmation and reactivates', async () => {
    let active = true;
    const server = fakeApi({
      'GET /api/v1/users/': () => json(page([ROOT, user(2, 'mei', { is_active: active })])),
      'POST /api/v1/users/2/deactivate/': () => {
        active = false;
        return json(user(2, 'mei', { is_active: false }));
      },
      'POST /api/v1/users/2/reactivate/': () => {
        active = true;
        return json(user(2, 'mei'));
      },
    });
    const actor = userEvent.setup();
    renderWithApp(<UsersPanel meId={1} />);
    await actor.click(await screen.findByTestId('user-deactivate-2'));
    expect(server.callsTo('POST', '/api/v1/users/2/deactivate/')).toHaveLength(0);
    await actor.click(await screen.findByTestId('user-deactivate-confirm'));
    expect(await screen.findByText('mei is deactivated and can no longer sign in.')).toBeInTheDocument();
    await actor.click(await screen.findByTestId('user-reactivate-2'));
    expect(await screen.findByText('mei can sign in again.')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('user-status-2')).toHaveTextContent('Active'));
  });

  it('generates a password and shows it once', async () => {
    const server = fakeApi({
      'GET /api/v1/users/': page([ROOT, user(2, 'mei')]),
      'POST /api/v1/users/2/reset-password/': json({ user: user(2, 'mei'), password: 'Gen-Erated-Pass' }),
    });
    const actor = userEvent.setup();
    renderWithApp(<UsersPanel meId={1} />);
    await actor.click(await screen.findByTestId('user-reset-password-2'));
    await actor.click(within(await screen.findByTestId('reset-mode')).getByText('Generate one'));
    await actor.click(screen.getByTestId('reset-password-submit'));
    expect(await screen.findByTestId('generated-password')).toHaveTextContent('Gen-Erated-Pass');
    expect(server.callsTo('POST', '/api/v1/users/2/reset-password/')[0].body).toEqual({});
    await actor.click(screen.getByTestId('generated-password-done'));
    await waitFor(() => expect(screen.queryByTestId('generated-password')).not.toBeInTheDocument());
    expect(document.body).not.toHaveTextContent('Gen-Erated-Pass');
  });

  it('sets a typed password; a refusal stays in the dialog', async () => {
    let attempts = 0;
    const server = fakeApi({
      'GET /api/v1/users/': page([ROOT, user(2, 'mei')]),
      'POST /api/v1/users/2/reset-password/': () =>
        ++attempts === 1
          ? apiError(400, 'password_too_weak', 'password: This password is too short.', { password: ['This password is too short.'] })
          : json({ user: user(2, 'mei'), password: null }),
    });
    const actor = userEvent.setup();
    renderWithApp(<UsersPanel meId={1} />);
    await actor.click(await screen.findByTestId('user-reset-password-2'));
    // the modal mounts on its opening transition
    expect(await screen.findByTestId('reset-password-submit')).toBeDisabled();
    await actor.type(screen.getByTestId('reset-password-input'), 'short');
    await actor.click(screen.getByTestId('reset-password-submit'));
    expect(await screen.findByTestId('reset-password-error')).toHaveTextContent('This password is too short.');
    await actor.clear(screen.getByTestId('reset-password-input'));
    await actor.type(screen.getByTestId('reset-password-input'), 'a-new-passphrase-7');
    await actor.click(screen.getByTestId('reset-password-submit'));
    expect(await screen.findByText('The password of mei was changed.')).toBeInTheDocument();
    expect(server.callsTo('POST', '/api/v1/users/2/reset-password/')[1].body).toEqual({ password: 'a-new-passphrase-7' });
  });
});

describe('UsersRoute', () => {
  it('tells a non-administrator that only administrators manage users, in Chinese too', async () => {
    await i18n.changeLanguage('zh-CN');
    const server = fakeApi({ 'GET /api/v1/auth/me/': { id: 2, username: 'mei', email: '', is_staff: false, language: 'zh-CN' } });
    renderWithApp(<UsersRoute />);
    expect(await screen.findByTestId('users-only-admins')).toHaveTextContent('仅限管理员');
    expect(server.callsTo('GET', '/api/v1/users/')).toHaveLength(0);
  });

  it('shows the users to an administrator', async () => {
    fakeApi({ 'GET /api/v1/auth/me/': ROOT, 'GET /api/v1/users/': page([ROOT]) });
    renderWithApp(<UsersRoute />);
    expect(await screen.findByTestId('user-row-1')).toHaveTextContent('root (you)');
  });

  it("shows an administrator every workspace's limits on its own tab", async () => {
    const server = fakeApi({
      'GET /api/v1/auth/me/': ROOT,
      'GET /api/v1/users/': page([ROOT]),
      'GET /api/v1/workspace-limits/': page([
        {
          workspace: 4,
          workspace_name: 'Vision team',
          owners: ['mei'],
          max_jobs: 2,
          max_gpu_jobs: null,
          effective_max_jobs: 2,
          effective_max_gpu_jobs: 0,
          running: 1,
          running_gpu: 0,
          can_edit: true,
          updated_at: null,
        },
      ]),
    });
    const user = userEvent.setup();
    renderWithApp(<UsersRoute />);
    expect(server.callsTo('GET', '/api/v1/workspace-limits/')).toHaveLength(0); // not before the tab opens
    await user.click(await screen.findByTestId('admin-tab-workspace-limits'));
    expect(await screen.findByTestId('all-limits-jobs-4')).toHaveTextContent('1 / 2');
  });
});
