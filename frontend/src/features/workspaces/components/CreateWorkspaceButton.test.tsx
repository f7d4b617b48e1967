import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { CreateWorkspaceButton } from './CreateWorkspaceButton';

describe('CreateWorkspaceButton', () => {
  it('creates a workspace and reports it', async () => {
    const created = { id: 5, name: 'NLP', description: 'text', role: 'owner', member_count: 1, created_at: '2026-11-29T00:00:00Z' };
    const server = fakeApi({ 'POST /api/v1/workspaces/': json(created, 201), 'GET /api/v1/workspaces/': { count: 0, results: [] } });
    const onCreated = vi.fn();
    const user = userEvent.setup();
    renderWithApp(<CreateWorkspaceButton onCreated={onCreated} />);
    await user.click(screen.getByTestId('create-workspace'));
    await user.type(await screen.findByTestId('workspace-name-input'), '  NLP ');
    await user.type(screen.getByTestId('workspace-description-input'), 'text');
    await user.click(screen.getByTestId('workspace-create-submit'));
    await waitFor(() => expect(onCreated).toHaveBeenCalledWith(created));
    expect(server.callsTo('POST', '/api/v1/workspaces/')[0].body).toEqual({ name: 'NLP', description: 'text' });
  });

  it('keeps the dialog open with the server message on a duplicate name', async () => {
    fakeApi({ 'POST /api/v1/workspaces/': () => apiError(400, 'invalid', 'name: A workspace with this name already exists.') });
    const user = userEvent.setup();
    renderWithApp(<CreateWorkspaceButton />);
    await user.click(screen.getByTestId('create-workspace'));
    await user.type(await screen.findByTestId('workspace-name-input'), 'NLP');
    await user.click(screen.getByTestId('workspace-create-submit'));
    expect(await screen.findByTestId('create-workspace-error')).toHaveTextContent('A workspace with this name already exists.');
    expect(screen.getByTestId('workspace-name-input')).toHaveValue('NLP');
  });
});
