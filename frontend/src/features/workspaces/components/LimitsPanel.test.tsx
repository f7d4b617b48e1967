import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { LimitsPanel } from './LimitsPanel';

const LIMITS = {
  max_jobs: null,
  max_gpu_jobs: null,
  effective_max_jobs: 0,
  effective_max_gpu_jobs: 2,
  running: 3,
  running_gpu: 1,
  can_edit: false,
  updated_at: null,
};

describe('LimitsPanel', () => {
  it('shows a member the limits and what runs, without a form', async () => {
    fakeApi({ 'GET /api/v1/workspaces/7/limits/': LIMITS });
    renderWithApp(<LimitsPanel workspaceId={7} />);
    expect(await screen.findByTestId('limits-max-jobs')).toHaveTextContent('unlimited');
    expect(screen.getByTestId('limits-max-gpu-jobs')).toHaveTextContent('2');
    expect(screen.getByTestId('limits-running')).toHaveTextContent('3');
    expect(screen.getByTestId('limits-staff-only')).toBeInTheDocument();
    expect(screen.queryByTestId('limits-form')).toBeNull();
  });

  it('lets staff set a limit', async () => {
    const server = fakeApi({
      'GET /api/v1/workspaces/7/limits/': { ...LIMITS, can_edit: true },
      'PUT /api/v1/workspaces/7/limits/': (call: RecordedCall) =>
        json({ ...LIMITS, can_edit: true, ...(call.body as object), effective_max_jobs: 4 }),
    });
    const user = userEvent.setup();
    renderWithApp(<LimitsPanel workspaceId={7} />);
    await user.type(await screen.findByTestId('limits-max-jobs-input'), '4');
    await user.click(screen.getByTestId('limits-save'));
    await waitFor(() => expect(server.callsTo('PUT', '/api/v1/workspaces/7/limits/')).toHaveLength(1));
    expect(server.callsTo('PUT', '/api/v1/workspaces/7/limits/')[0].body).toEqual({ max_jobs: 4, max_gpu_jobs: null });
    expect(await screen.findByTestId('limits-max-jobs')).toHaveTextContent('4');
  });
});
