import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TargetProfilesPanel } from './TargetProfilesPanel';

const BUILTIN = {
  kind: 'target_profile',
  version: 1,
  name: 'edge-arm-slow',
  description: 'An ARM board',
  runtime: 'onnxruntime',
  execution_provider: 'CPUExecutionProvider',
  intra_op_threads: 1,
  inter_op_threads: 1,
  batch_size: 1,
  slowdown: 4,
  latency_budget_ms: null,
  size_budget_bytes: null,
};
const OWN = { ...BUILTIN, id: 5, workspace: 1, name: 'kiosk', description: '', slowdown: 2, latency_budget_ms: 5, size_budget_bytes: 2_000_000, builtin: false };

describe('TargetProfilesPanel', () => {
  it('lists builtins and the workspace profiles, checks the form, creates and deletes', async () => {
    const server = fakeApi({
      'GET /api/v1/workspaces/': json(page([{ id: 1, name: 'Lab', role: 'owner', member_count: 1, created_at: '2026-11-29T10:00:00Z' }])),
      'GET /api/v1/target-profiles/builtins/': json([BUILTIN]),
      'GET /api/v1/target-profiles/': json(page([OWN])),
      'POST /api/v1/target-profiles/': (call: RecordedCall) =>
        (call.body as { slowdown: number }).slowdown > 100 ? apiError(400, 'invalid', 'Invalid input.', { slowdown: ['At most 100 here.'] }) : json({ ...OWN, id: 6, name: 'phone' }, 201),
      'DELETE /api/v1/target-profiles/5/': () => new Response(null, { status: 204 }),
    });
    renderWithApp(<TargetProfilesPanel />);
    await waitFor(() => expect(screen.getByTestId('targets-table')).toHaveAttribute('data-rows', '2'));
    expect(screen.getByTestId('target-row-edge-arm-slow')).toHaveTextContent('builtin');
    expect(screen.queryByTestId('target-edit-edge-arm-slow')).toBeNull();
    expect(screen.getByTestId('target-row-kiosk')).toHaveTextContent('5 ms');
    expect(server.callsTo('GET', '/api/v1/target-profiles/')[0].search.get('workspace')).toBe('1');

    const user = userEvent.setup();
    await user.click(screen.getByTestId('target-create'));
    const form = await screen.findByTestId('target-form');
    // nothing typed: the name is asked for, and a taken name is refused before the server sees it
    await user.click(within(form).getByTestId('target-save'));
    expect(form).toHaveTextContent('Give the profile a name.');
    await user.type(within(form).getByTestId('target-name'), 'kiosk');
    await user.click(within(form).getByTestId('target-save'));
    expect(form).toHaveTextContent('A profile with this name exists already.');
    expect(server.callsTo('POST', '/api/v1/target-profiles/')).toHaveLength(0);

    await user.clear(within(form).getByTestId('target-name'));
    await user.type(within(form).getByTestId('target-name'), 'phone');
    await user.clear(within(form).getByTestId('target-slowdown'));
    await user.type(within(form).getByTestId('target-slowdown'), '500');
    await user.type(within(form).getByTestId('target-latency-budget'), '8');
    await user.click(within(form).getByTestId('target-save'));
    // the server's field error lands under its field
    expect(await within(form).findByText('At most 100 here.')).toBeInTheDocument();
    await user.clear(within(form).getByTestId('target-slowdown'));
    await user.type(within(form).getByTestId('target-slowdown'), '3');
    await user.click(within(form).getByTestId('target-save'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/target-profiles/')).toHaveLength(2));
    expect(server.callsTo('POST', '/api/v1/target-profiles/')[1].body).toEqual({
      workspace: 1,
      runtime: 'onnxruntime',
      name: 'phone',
      description: '',
      intra_op_threads: 1,
      inter_op_threads: 1,
      slowdown: 3,
      latency_budget_ms: 8,
      size_budget_bytes: null,
    });
    await waitFor(() => expect(screen.queryByTestId('target-form')).toBeNull());

    await user.click(screen.getByTestId('target-delete-kiosk'));
    await user.click(await screen.findByTestId('target-delete-confirm'));
    await waitFor(() => expect(server.callsTo('DELETE', '/api/v1/target-profiles/5/')).toHaveLength(1));
  }, 30_000);
});
