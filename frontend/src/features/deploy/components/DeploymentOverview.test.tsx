import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { DEPLOYMENT, MODEL_VERSIONS } from '../test/fixtures';
import { DeploymentOverview } from './DeploymentOverview';

describe('DeploymentOverview', () => {
  it('shows the endpoint, the version served and the history, newest first', async () => {
    fakeApi({ 'GET /api/v1/model-versions/': page(MODEL_VERSIONS) });
    renderWithApp(<DeploymentOverview deployment={DEPLOYMENT} onDeleted={vi.fn()} />);
    expect(screen.getByTestId('deployment-predict-url')).toHaveTextContent(`${window.location.origin}/api/v1/deployments/7/predict/`);
    expect(screen.getByTestId('deployment-model-version')).toHaveTextContent('V3');
    expect(screen.getByTestId('deployment-status-7')).toHaveTextContent('serving');
    const entries = screen.getAllByTestId('deployment-history-entry');
    expect(entries.map((entry) => entry.getAttribute('data-action'))).toEqual(['switch', 'create']);
    expect(entries[0]).toHaveTextContent('Switched · V3');
    expect(entries[1]).toHaveTextContent('Deployed · V2');
    await waitFor(() => expect(screen.getByTestId('deployment-rollback')).toHaveTextContent('Roll back to V2'));
  });

  it('switches to another version only after confirmation', async () => {
    const server = fakeApi({
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
      'POST /api/v1/deployments/7/switch/': json({ ...DEPLOYMENT, model_version: 10, model_version_name: 'V1', previous_model_version: 12 }),
      'GET /api/v1/deployments/': page([]),
    });
    const user = userEvent.setup();
    renderWithApp(<DeploymentOverview deployment={DEPLOYMENT} onDeleted={vi.fn()} />);
    await waitFor(() => expect(screen.getByTestId('deployment-switch-select')).toBeEnabled());
    await user.click(screen.getByTestId('deployment-switch-select'));
    const options = await screen.findAllByRole('option', { hidden: true });
    expect(options.map((option) => option.textContent)).toEqual(['V2', 'V1']);
    await user.click(screen.getByRole('option', { name: 'V1', hidden: true }));
    await user.click(screen.getByTestId('deployment-switch'));
    expect(await screen.findByTestId('deployment-confirm-text')).toHaveTextContent('Serve V1 instead of V3?');
    expect(server.callsTo('POST', '/api/v1/deployments/7/switch/')).toHaveLength(0);
    await user.click(screen.getByTestId('deployment-confirm'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/switch/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/deployments/7/switch/')[0].body).toEqual({ model_version: 10 });
  });

  it('stops after confirmation, and a cancelled confirmation sends nothing', async () => {
    const server = fakeApi({
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
      'POST /api/v1/deployments/7/stop/': json({ ...DEPLOYMENT, status: 'stopped' }),
      'GET /api/v1/deployments/': page([]),
    });
    const user = userEvent.setup();
    renderWithApp(<DeploymentOverview deployment={DEPLOYMENT} onDeleted={vi.fn()} />);
    await user.click(screen.getByTestId('deployment-stop'));
    expect(await screen.findByTestId('deployment-confirm-text')).toHaveTextContent('503');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByTestId('deployment-confirm-text')).not.toBeInTheDocument());
    expect(server.callsTo('POST', '/api/v1/deployments/7/stop/')).toHaveLength(0);

    await user.click(screen.getByTestId('deployment-stop'));
    await user.click(await screen.findByTestId('deployment-confirm'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/stop/')).toHaveLength(1));
  });

  it('offers start on a stopped deployment and no rollback without a previous version', async () => {
    fakeApi({ 'GET /api/v1/model-versions/': page(MODEL_VERSIONS) });
    renderWithApp(<DeploymentOverview deployment={{ ...DEPLOYMENT, status: 'stopped' as const, previous_model_version: null }} onDeleted={vi.fn()} />);
    expect(screen.getByTestId('deployment-start')).toBeEnabled();
    expect(screen.queryByTestId('deployment-stop')).not.toBeInTheDocument();
    expect(screen.getByTestId('deployment-rollback')).toBeDisabled();
  });

  it('rolls back and deletes through the API after confirming', async () => {
    const onDeleted = vi.fn();
    const server = fakeApi({
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
      'POST /api/v1/deployments/7/rollback/': json({ ...DEPLOYMENT, model_version: 11, model_version_name: 'V2', previous_model_version: 12 }),
      'DELETE /api/v1/deployments/7/': () => new Response(null, { status: 204 }),
      'GET /api/v1/deployments/': page([]),
    });
    const user = userEvent.setup();
    renderWithApp(<DeploymentOverview deployment={DEPLOYMENT} onDeleted={onDeleted} />);
    await user.click(screen.getByTestId('deployment-rollback'));
    await user.click(await screen.findByTestId('deployment-confirm'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/rollback/')).toHaveLength(1));
    await waitFor(() => expect(screen.queryByTestId('deployment-confirm-text')).not.toBeInTheDocument());
    await user.click(screen.getByTestId('deployment-delete'));
    await user.click(await screen.findByTestId('deployment-confirm'));
    await waitFor(() => expect(onDeleted).toHaveBeenCalledTimes(1));
    expect(server.callsTo('DELETE', '/api/v1/deployments/7/')).toHaveLength(1);
  });
});
