import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { KEY } from '../test/fixtures';
import { keyStatus } from '../api/apiKeys';
import { ApiKeysPanel } from './ApiKeysPanel';

describe('ApiKeysPanel', () => {
  it('creates a key with expiry and quota, shows the secret once and keeps it nowhere in the browser', async () => {
    const keys: object[] = [];
    const server = fakeApi({
      'GET /api/v1/deployments/7/keys/': () => json(keys),
      'POST /api/v1/deployments/7/keys/': (call: RecordedCall) => {
        const created = { ...KEY, id: 9, ...(call.body as object) };
        keys.push(created);
        return json({ ...created, key: 'spd_ab12.SECRET-VALUE' }, 201);
      },
    });
    const user = userEvent.setup();
    renderWithApp(<ApiKeysPanel deploymentId={7} />);
    await screen.findByTestId('deployment-keys-empty');

    await user.click(screen.getByTestId('create-deployment-key'));
    await user.type(await screen.findByTestId('deployment-key-name-input'), 'kiosk');
    await user.click(screen.getByTestId('deployment-key-expiry-input'));
    await user.click(await screen.findByRole('option', { name: 'In 30 days', hidden: true }));
    await user.type(screen.getByTestId('deployment-key-quota-input'), '120');
    await user.click(screen.getByTestId('deployment-key-create-submit'));

    expect(await screen.findByTestId('deployment-key-secret')).toHaveTextContent('spd_ab12.SECRET-VALUE');
    expect(screen.getByTestId('deployment-key-warning')).toHaveTextContent('only time');
    const body = server.callsTo('POST', '/api/v1/deployments/7/keys/')[0].body as Record<string, unknown>;
    expect(body).toMatchObject({ name: 'kiosk', quota_per_minute: 120 });
    const days = (new Date(body.expires_at as string).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);

    await user.click(screen.getByTestId('deployment-key-done'));
    await waitFor(() => expect(screen.queryByTestId('deployment-key-secret')).not.toBeInTheDocument());
    expect(await screen.findByTestId('deployment-key-row-9')).toHaveTextContent('120/min');
    expect(document.body).not.toHaveTextContent('SECRET-VALUE');
    // never stored: neither storage holds the key, in clear or otherwise
    const stored = [localStorage, sessionStorage].flatMap((storage) =>
      Array.from({ length: storage.length }, (_, i) => `${storage.key(i)}=${storage.getItem(storage.key(i) as string)}`),
    );
    expect(stored.join('\n')).not.toContain('SECRET-VALUE');
    expect(stored.join('\n')).not.toContain('spd_');
  });

  it('sends no expiry or quota when none is chosen', async () => {
    const server = fakeApi({
      'GET /api/v1/deployments/7/keys/': [],
      'POST /api/v1/deployments/7/keys/': json({ ...KEY, key: 'spd_x' }, 201),
    });
    const user = userEvent.setup();
    renderWithApp(<ApiKeysPanel deploymentId={7} />);
    await user.click(await screen.findByTestId('create-deployment-key'));
    await user.type(await screen.findByTestId('deployment-key-name-input'), 'plain');
    await user.click(screen.getByTestId('deployment-key-create-submit'));
    await screen.findByTestId('deployment-key-secret');
    expect(server.callsTo('POST', '/api/v1/deployments/7/keys/')[0].body).toEqual({ name: 'plain' });
  });

  it('revokes a key only after confirmation', async () => {
    let status = 'active';
    const server = fakeApi({
      'GET /api/v1/deployments/7/keys/': () => json([{ ...KEY, status, last_used_at: '2026-11-29T10:00:00Z' }]),
      'DELETE /api/v1/deployments/7/keys/3/': () => {
        status = 'revoked';
        return new Response(null, { status: 204 });
      },
    });
    const user = userEvent.setup();
    renderWithApp(<ApiKeysPanel deploymentId={7} />);
    expect(await screen.findByTestId('deployment-key-row-3')).toHaveTextContent('spd_ab12');
    expect(screen.getByTestId('deployment-key-last-used-3')).not.toHaveTextContent('never');
    await user.click(screen.getByTestId('deployment-key-revoke-3'));
    expect(server.callsTo('DELETE', '/api/v1/deployments/7/keys/3/')).toHaveLength(0);
    await user.click(await screen.findByTestId('deployment-key-revoke-confirm'));
    await waitFor(() => expect(screen.getByTestId('deployment-key-status-3')).toHaveTextContent('revoked'));
    expect(screen.getByTestId('deployment-key-revoke-3')).toBeDisabled();
  });

  it('derives a status from the dates when the server sends none', () => {
    const now = new Date('2026-06-01T00:00:00Z');
    expect(keyStatus({ expires_at: '2026-05-01T00:00:00Z' }, now)).toBe('expired');
    expect(keyStatus({ expires_at: null, revoked_at: '2026-05-01T00:00:00Z' }, now)).toBe('revoked');
    expect(keyStatus({ expires_at: '2026-07-01T00:00:00Z' }, now)).toBe('active');
  });
});
