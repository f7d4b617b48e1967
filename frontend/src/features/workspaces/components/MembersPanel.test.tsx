import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { i18n } from '@/i18n';
import { apiError, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { MembersPanel } from './MembersPanel';

const MEMBERS = page([
  { id: 1, user: { id: 1, username: 'alice', email: 'alice@example.com' }, role: 'owner', created_at: '2026-11-01T00:00:00Z' },
  { id: 2, user: { id: 2, username: 'bob', email: '' }, role: 'viewer', created_at: '2026-11-02T00:00:00Z' },
]);
const INVITATION = {
  id: 11,
  workspace: { id: 7, name: 'Vision team' },
  user: { id: 3, username: 'carol', email: '' },
  role: 'editor',
  status: 'pending',
  invited_by: { id: 1, username: 'alice', email: '' },
  created_at: '2026-11-03T00:00:00Z',
  responded_at: null,
};

describe('MembersPanel', () => {
  it('disables owner-only actions for non-owners, saying why', async () => {
    fakeApi({ 'GET /api/v1/workspaces/7/members/': MEMBERS, 'GET /api/v1/workspaces/7/invitations/': page([INVITATION]) });
    renderWithApp(<MembersPanel workspaceId={7} canManage={false} />);
    expect(await screen.findByTestId('member-row-2')).toHaveTextContent('bob');
    expect(screen.getByTestId('member-remove-1')).toBeDisabled();
    expect(screen.getByTestId('member-remove-2')).toBeDisabled();
    expect(screen.getByTestId('invite-username-input')).toBeDisabled();
    expect(screen.getByTestId('invite-submit')).toBeDisabled();
    expect(screen.getByTestId('member-role-2')).toBeDisabled();
    expect(screen.getByTestId('invite-submit').closest('[data-disabled-reason]')).toHaveAttribute(
      'data-disabled-reason',
      'Only workspace owners can manage members',
    );
    expect(await screen.findByTestId('invitation-revoke-11')).toBeDisabled();
  });

  it('invites a user by username and role and lists the pending invitation', async () => {
    const invitations: object[] = [];
    const server = fakeApi({
      'GET /api/v1/workspaces/7/members/': MEMBERS,
      'GET /api/v1/workspaces/7/invitations/': () => json(page(invitations)),
      'POST /api/v1/workspaces/7/invitations/': () => {
        invitations.push(INVITATION);
        return json(INVITATION, 201);
      },
    });
    const user = userEvent.setup();
    renderWithApp(<MembersPanel workspaceId={7} canManage />);
    await screen.findByTestId('member-row-1');
    expect(screen.getByTestId('invite-submit').closest('[data-disabled-reason]')).toHaveAttribute(
      'data-disabled-reason',
      'Type the username of an existing user first.',
    );
    await user.type(screen.getByTestId('invite-username-input'), ' carol ');
    const roleInput = screen.getByTestId('invite-role-input');
    await user.click(roleInput);
    const listbox = await waitFor(() => document.getElementById(roleInput.getAttribute('aria-controls') ?? '') as HTMLElement);
    await user.click(within(listbox).getByRole('option', { name: 'Editor', hidden: true }));
    await user.click(screen.getByTestId('invite-submit'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/workspaces/7/invitations/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/workspaces/7/invitations/')[0].body).toEqual({ username: 'carol', role: 'editor' });
    expect(await screen.findByText('carol invited as editor. They join once they accept.')).toBeInTheDocument();
    expect(await screen.findByTestId('invitation-row-11')).toHaveTextContent('carol');
    expect(screen.getByTestId('invite-username-input')).toHaveValue('');
  });

  it("shows the server's refusal", async () => {
    fakeApi({
      'GET /api/v1/workspaces/7/members/': MEMBERS,
      'GET /api/v1/workspaces/7/invitations/': page([]),
      'POST /api/v1/workspaces/7/invitations/': () =>
        apiError(409, 'already_member', "username: 'bob' is already a member of this workspace.", { username: ['…'] }),
    });
    const user = userEvent.setup();
    renderWithApp(<MembersPanel workspaceId={7} canManage />);
    await screen.findByTestId('member-row-1');
    await user.type(screen.getByTestId('invite-username-input'), 'bob');
    await user.click(screen.getByTestId('invite-submit'));
    expect(await screen.findByText(/'bob' is already a member of this workspace/)).toBeInTheDocument();
  });

  it('revokes a pending invitation', async () => {
    let pending = [INVITATION];
    const server = fakeApi({
      'GET /api/v1/workspaces/7/members/': MEMBERS,
      'GET /api/v1/workspaces/7/invitations/': () => json(page(pending)),
      'POST /api/v1/workspaces/7/invitations/11/revoke/': () => {
        pending = [];
        return json({ ...INVITATION, status: 'revoked' });
      },
    });
    const user = userEvent.setup();
    renderWithApp(<MembersPanel workspaceId={7} canManage />);
    await user.click(await screen.findByTestId('invitation-revoke-11'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/workspaces/7/invitations/11/revoke/')).toHaveLength(1));
    expect(await screen.findByText('The invitation of carol was revoked.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('invitation-row-11')).not.toBeInTheDocument());
  });

  it('removes a member after confirmation', async () => {
    const server = fakeApi({
      'GET /api/v1/workspaces/7/members/': MEMBERS,
      'GET /api/v1/workspaces/7/invitations/': page([]),
      'DELETE /api/v1/workspaces/7/members/2/': () => new Response(null, { status: 204 }),
    });
    const user = userEvent.setup();
    renderWithApp(<MembersPanel workspaceId={7} canManage />);
    await user.click(await screen.findByTestId('member-remove-2'));
    await user.click(await screen.findByTestId('member-remove-confirm'));
    await waitFor(() => expect(server.callsTo('DELETE', '/api/v1/workspaces/7/members/2/')).toHaveLength(1));
    expect(await screen.findByText('bob removed.')).toBeInTheDocument();
  });

  it('reads in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi({ 'GET /api/v1/workspaces/7/members/': MEMBERS, 'GET /api/v1/workspaces/7/invitations/': page([INVITATION]) });
    renderWithApp(<MembersPanel workspaceId={7} canManage />);
    expect(await screen.findByTestId('invitation-row-11')).toHaveTextContent('编辑者');
    expect(screen.getByText('待处理的邀请')).toBeInTheDocument();
    expect(screen.getByTestId('invite-submit')).toHaveTextContent('邀请');
    expect(screen.getByTestId('members-table')).toHaveTextContent('加入时间');
  });
});
