import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { expiryFromOption } from '../api/expiry';
import { TokensPanel } from './TokensPanel';

const BASE = { prefix: 'smp_ab12', created_at: '2026-11-01T00:00:00Z', last_used_at: null, revoked_at: null };

describe('TokensPanel', () => {
  it('lists tokens with their status and offers revoke only for active ones', async () => {
    fakeApi({
      'GET /api/v1/tokens/': page([
        { ...BASE, id: 1, name: 'ci', expires_at: null, status: 'active' },
        { ...BASE, id: 2, name: 'old', expires_at: null, revoked_at: '2026-11-02T00:00:00Z', status: 'revoked' },
        { ...BASE, id: 3, name: 'temp', expires_at: '2026-11-03T00:00:00Z', status: 'expired' },
      ]),
    });
    renderWithApp(<TokensPanel />);
    expect(await screen.findByTestId('token-status-1')).toHaveTextContent('active');
    expect(screen.getByTestId('token-status-2')).toHaveTextContent('revoked');
    expect(screen.getByTestId('token-status-3')).toHaveTextContent('expired');
    expect(screen.getByTestId('token-revoke-1')).toBeEnabled();
    expect(screen.getByTestId('token-revoke-2')).toBeDisabled();
    expect(screen.getByTestId('token-revoke-3')).toBeDisabled();
  });

  it('shows a new key once, with a warning, and never again after the dialog closes', async () => {
    const tokens: object[] = [];
    const server = fakeApi({
      'GET /api/v1/tokens/': () => json(page(tokens)),
      'POST /api/v1/tokens/': (call: RecordedCall) => {
        const token = { ...BASE, id: 9, status: 'active', expires_at: null, ...(call.body as object) };
        tokens.push(token);
        return json({ ...token, key: 'smp_ab12.SECRET-KEY-VALUE' }, 201);
      },
    });
    const user = userEvent.setup();
    renderWithApp(<TokensPanel />);
    await screen.findByTestId('tokens-empty');

    await user.click(screen.getByTestId('create-token'));
    await user.type(await screen.findByTestId('token-name-input'), 'notebook');
    await user.click(screen.getByTestId('token-create-submit'));

    expect(await screen.findByTestId('token-key')).toHaveTextContent('smp_ab12.SECRET-KEY-VALUE');
    expect(screen.getByTestId('token-key-warning')).toHaveTextContent('only time');
    const [post] = server.callsTo('POST', '/api/v1/tokens/');
    expect(post.body).toMatchObject({ name: 'notebook' });
    expect(typeof (post.body as { expires_at: string }).expires_at).toBe('string');

    await user.click(screen.getByTestId('token-key-done'));
    await waitFor(() => expect(screen.queryByTestId('token-key')).not.toBeInTheDocument());
    expect(await screen.findByTestId('token-row-9')).toHaveTextContent('notebook');
    expect(document.body).not.toHaveTextContent('SECRET-KEY-VALUE');
  });

  it('shows the server message when creating fails', async () => {
    fakeApi({
      'GET /api/v1/tokens/': page([]),
      'POST /api/v1/tokens/': () => apiError(400, 'invalid', 'expires_at: Must be in the future.', { expires_at: ['Must be in the future.'] }),
    });
    const user = userEvent.setup();
    renderWithApp(<TokensPanel />);
    await user.click(await screen.findByTestId('create-token'));
    await user.type(await screen.findByTestId('token-name-input'), 'x');
    await user.click(screen.getByTestId('token-create-submit'));
    expect(await screen.findByTestId('create-token-error')).toHaveTextContent('expires_at: Must be in the future.');
    expect(screen.queryByTestId('token-key')).not.toBeInTheDocument();
  });

  it('revokes a token only after confirmation', async () => {
    let status = 'active';
    const server = fakeApi({
      'GET /api/v1/tokens/': () => json(page([{ ...BASE, id: 1, name: 'ci', expires_at: null, status }])),
      'POST /api/v1/tokens/1/revoke/': () => {
        status = 'revoked';
        return json({ ...BASE, id: 1, name: 'ci', expires_at: null, status });
      },
    });
    const user = userEvent.setup();
    renderWithApp(<TokensPanel />);
    await user.click(await screen.findByTestId('token-revoke-1'));
    expect(server.callsTo('POST', '/api/v1/tokens/1/revoke/')).toHaveLength(0);
    await user.click(await screen.findByTestId('token-revoke-confirm'));
    await waitFor(() => expect(screen.getByTestId('token-status-1')).toHaveTextContent('revoked'));
    expect(server.callsTo('POST', '/api/v1/tokens/1/revoke/')).toHaveLength(1);
  });

  it('computes expiry dates from the chosen option', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(expiryFromOption('never', now)).toBeNull();
    expect(expiryFromOption('30', now)).toBe('2026-01-31T00:00:00.000Z');
  });
});
