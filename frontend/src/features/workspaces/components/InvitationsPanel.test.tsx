import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { InvitationsPanel } from './InvitationsPanel';

const invitation = (id: number, workspace: string, role: string) => ({
  id,
  workspace: { id: id * 10, name: workspace },
  user: { id: 3, username: 'carol', email: '' },
  role,
  status: 'pending',
  invited_by: { id: 1, username: 'alice', email: '' },
  created_at: '2026-11-03T00:00:00Z',
  responded_at: null,
});

describe('InvitationsPanel', () => {
  it('shows nothing without invitations', async () => {
    const server = fakeApi({ 'GET /api/v1/invitations/': page([]) });
    renderWithApp(<InvitationsPanel />);
    await waitFor(() => expect(server.callsTo('GET', '/api/v1/invitations/')).toHaveLength(1));
    expect(screen.queryByTestId('my-invitations')).not.toBeInTheDocument();
  });

  it('counts the pending invitations and accepts or declines them', async () => {
    let pending = [invitation(1, 'Vision team', 'editor'), invitation(2, 'NLP', 'viewer')];
    const answer = (id: number, status: string) => () => {
      const found = pending.find((i) => i.id === id)!;
      pending = pending.filter((i) => i.id !== id);
      return json(status === 'accepted' ? { invitation: { ...found, status }, membership: {} } : { ...found, status });
    };
    const server = fakeApi({
      'GET /api/v1/invitations/': () => json(page(pending)),
      'GET /api/v1/workspaces/': page([]),
      'POST /api/v1/invitations/1/accept/': answer(1, 'accepted'),
      'POST /api/v1/invitations/2/decline/': answer(2, 'declined'),
    });
    const user = userEvent.setup();
    renderWithApp(<InvitationsPanel />);
    expect(await screen.findByTestId('my-invitations-count')).toHaveTextContent('2 invitations wait for your answer.');
    expect(screen.getByTestId('my-invitation-1')).toHaveTextContent('alice invites you to Vision team as editor.');

    await user.click(screen.getByTestId('invitation-accept-1'));
    expect(await screen.findByText('You joined Vision team as editor.')).toBeInTheDocument();
    expect(await screen.findByText('1 invitation waits for your answer.')).toBeInTheDocument();
    await user.click(screen.getByTestId('invitation-decline-2'));
    await waitFor(() => expect(screen.queryByTestId('my-invitations')).not.toBeInTheDocument());
    expect(server.callsTo('POST', '/api/v1/invitations/1/accept/')).toHaveLength(1);
    expect(server.callsTo('POST', '/api/v1/invitations/2/decline/')).toHaveLength(1);
  });
});
