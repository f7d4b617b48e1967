import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiError, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { MembersPanel } from './MembersPanel';

const MEMBERS = page([
  { id: 1, user: { id: 1, username: 'alice', email: 'alice@example.com' }, role: 'owner', created_at: '2026-11-01T00:00:00Z' },
  { id: 2, user: { id: 2, username: 'bob', email: '' }, role: 'viewer', created_at: '2026-11-02T00:00:00Z' },
]);

describe('MembersPanel', () => {
  it('disables owner-only actions for non-owners', async () => {
    fakeApi({ 'GET /api/v1/workspaces/7/members/': MEMBERS });
    renderWithApp(<MembersPanel workspaceId={7} canManage={false} />);
    expect(await screen.findByTestId('member-row-2')).toHaveTextContent('bob');
    expect(screen.getByTestId('member-remove-1')).toBeDisabled();
    expect(screen.getByTestId('member-remove-2')).toBeDisabled();
    expect(screen.getByTestId('member-username-input')).toBeDisabled();
    expect(screen.getByTestId('member-add')).toBeDisabled();
    expect(screen.getByTestId('member-role-2')).toBeDisabled();
  });

  it('adds a member by username and role', async () => {
    document.cookie = 'csrftoken=tok; path=/';
    const server = fakeApi({
      'GET /api/v1/workspaces/7/members/': MEMBERS,
      'POST /api/v1/workspaces/7/members/': json(
        { id: 3, user: { id: 3, username: 'carol', email: '' }, role: 'viewer', created_at: '2026-11-03T00:00:00Z' },
        201,
      ),
    });
    const user = userEvent.setup();
    renderWithApp(<MembersPanel workspaceId={7} canManage />);
    await screen.findByTestId('member-row-1');
    await user.type(screen.getByTestId('member-username-input'), 'carol');
    await user.click(screen.getByTestId('member-add'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/workspaces/7/members/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/workspaces/7/members/')[0].body).toEqual({ username: 'carol', role: 'viewer' });
    expect(await screen.findByText('carol added as viewer.')).toBeInTheDocument();
  });

  it("shows the server's refusal as a notification", async () => {
    fakeApi({
      'GET /api/v1/workspaces/7/members/': MEMBERS,
      'POST /api/v1/workspaces/7/members/': () => apiError(400, 'invalid', 'username: No user named "nobody".', { username: ['No user named "nobody".'] }),
    });
    const user = userEvent.setup();
    renderWithApp(<MembersPanel workspaceId={7} canManage />);
    await screen.findByTestId('member-row-1');
    await user.type(screen.getByTestId('member-username-input'), 'nobody');
    await user.click(screen.getByTestId('member-add'));
    expect(await screen.findByText(/No user named "nobody"/)).toBeInTheDocument();
  });

  it('removes a member after confirmation', async () => {
    const server = fakeApi({
      'GET /api/v1/workspaces/7/members/': MEMBERS,
      'DELETE /api/v1/workspaces/7/members/2/': () => new Response(null, { status: 204 }),
    });
    const user = userEvent.setup();
    renderWithApp(<MembersPanel workspaceId={7} canManage />);
    await user.click(await screen.findByTestId('member-remove-2'));
    await user.click(await screen.findByTestId('member-remove-confirm'));
    await waitFor(() => expect(server.callsTo('DELETE', '/api/v1/workspaces/7/members/2/')).toHaveLength(1));
    expect(await screen.findByText('bob removed.')).toBeInTheDocument();
  });
});
