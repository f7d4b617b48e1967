import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { AllLimitsPanel } from './AllLimitsPanel';

const ROW = {
  workspace: 7,
  workspace_name: 'Vision team',
  owners: ['alice'],
  max_jobs: null,
  max_gpu_jobs: 1,
  effective_max_jobs: 0,
  effective_max_gpu_jobs: 1,
  running: 3,
  running_gpu: 1,
  can_edit: true,
  updated_at: '2026-12-01T10:00:00Z',
};
const OTHER = { ...ROW, workspace: 8, workspace_name: 'Text team', owners: ['bob'], max_gpu_jobs: null, running: 0 };

function page(results: object[]) {
  return { count: results.length, next: null, previous: null, results };
}

describe('AllLimitsPanel', () => {
  it('lists every workspace with running / limit and whether the limit is the default', async () => {
    fakeApi({ 'GET /api/v1/workspace-limits/': page([ROW, OTHER]) });
    renderWithApp(<AllLimitsPanel />);
    expect(await screen.findByTestId('all-limits-jobs-7')).toHaveTextContent('3 / unlimited (default)');
    expect(screen.getByTestId('all-limits-gpu-jobs-7')).toHaveTextContent(/^1 \/ 1$/); // its own limit
    expect(screen.getByTestId('all-limits-gpu-jobs-8')).toHaveTextContent('1 / 1 (default)');
    expect(within(screen.getByTestId('all-limits-row-8')).getByText('bob')).toBeInTheDocument();
  });

  it('searches by name', async () => {
    const server = fakeApi({
      'GET /api/v1/workspace-limits/': (call: RecordedCall) =>
        json(page(call.search.get('search') === 'text' ? [OTHER] : [ROW, OTHER])),
    });
    const user = userEvent.setup();
    renderWithApp(<AllLimitsPanel />);
    await screen.findByTestId('all-limits-row-7');
    await user.type(screen.getByTestId('all-limits-search'), 'text');
    await waitFor(() => expect(screen.queryByTestId('all-limits-row-7')).toBeNull());
    expect(screen.getByTestId('all-limits-row-8')).toBeInTheDocument();
    expect(server.callsTo('GET', '/api/v1/workspace-limits/').at(-1)?.search.get('search')).toBe('text');
  });

  it('edits a workspace it is no member of in a dialog, and the list follows', async () => {
    let saved = false;
    const server = fakeApi({
      'GET /api/v1/workspace-limits/': () => json(page([saved ? { ...ROW, max_jobs: 2, effective_max_jobs: 2 } : ROW])),
      'GET /api/v1/workspaces/7/limits/': ROW,
      'PUT /api/v1/workspaces/7/limits/': (call: RecordedCall) => {
        saved = true;
        return json({ ...ROW, ...(call.body as object), effective_max_jobs: 2 });
      },
    });
    const user = userEvent.setup();
    renderWithApp(<AllLimitsPanel />);
    await user.click(await screen.findByTestId('all-limits-edit-7'));
    expect(await screen.findByText('Limits of Vision team')).toBeInTheDocument();
    await user.type(await screen.findByTestId('limits-max-jobs-input'), '2');
    await user.click(screen.getByTestId('limits-save'));
    await waitFor(() => expect(server.callsTo('PUT', '/api/v1/workspaces/7/limits/')).toHaveLength(1));
    expect(server.callsTo('PUT', '/api/v1/workspaces/7/limits/')[0].body).toEqual({ max_jobs: 2, max_gpu_jobs: 1 });
    await waitFor(() => expect(screen.getByTestId('all-limits-jobs-7')).toHaveTextContent(/^3 \/ 2$/));
  });
});
