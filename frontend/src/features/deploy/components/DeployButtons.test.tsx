import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { DEPLOYMENT, PACKAGE } from '../test/fixtures';
import { DeployButtons } from './DeployButtons';

const VERSION = { id: 12, name: 'V3', project: 4 };

describe('DeployButtons', () => {
  it('deploys the version as a hosted API under the chosen name and hands over the deployment', async () => {
    const server = fakeApi({
      'GET /api/v1/deployments/': page([]),
      'POST /api/v1/deployments/': (call: RecordedCall) => json({ ...DEPLOYMENT, ...(call.body as object), history: [] }, 201),
    });
    const onDeployed = vi.fn();
    const user = userEvent.setup();
    renderWithApp(<DeployButtons version={VERSION} onDeployed={onDeployed} />);
    await user.click(screen.getByTestId('deploy-hosted'));
    const name = await screen.findByTestId('deployment-name-input');
    expect(name).toHaveValue('v3-api');
    await user.clear(name);
    await user.type(name, 'digits-prod');
    await user.click(screen.getByTestId('deployment-create-submit'));
    await waitFor(() => expect(onDeployed).toHaveBeenCalledTimes(1));
    expect(onDeployed.mock.calls[0][0]).toMatchObject({ id: 7, name: 'digits-prod' });
    expect(server.callsTo('POST', '/api/v1/deployments/')[0].body).toEqual({ project: 4, model_version: 12, name: 'digits-prod' });
  });

  it('shows why the server refused a deployment, in the dialog', async () => {
    fakeApi({
      'GET /api/v1/deployments/': page([]),
      'POST /api/v1/deployments/': () => apiError(400, 'invalid', 'name: A deployment with this name exists.', { name: ['A deployment with this name exists.'] }),
    });
    const onDeployed = vi.fn();
    const user = userEvent.setup();
    renderWithApp(<DeployButtons version={VERSION} onDeployed={onDeployed} />);
    await user.click(screen.getByTestId('deploy-hosted'));
    await user.click(await screen.findByTestId('deployment-create-submit'));
    expect(await screen.findByTestId('deploy-hosted-error')).toHaveTextContent('A deployment with this name exists.');
    expect(onDeployed).not.toHaveBeenCalled();
  });

  it('builds a server package and a device SDK of the version', async () => {
    const server = fakeApi({
      'GET /api/v1/deployments/': page([]),
      'POST /api/v1/packages/': (call: RecordedCall) => json({ ...PACKAGE, status: 'queued', ...(call.body as object) }, 201),
    });
    const user = userEvent.setup();
    renderWithApp(<DeployButtons version={VERSION} onDeployed={vi.fn()} />);
    await user.click(screen.getByTestId('deploy-server-package'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/packages/')).toHaveLength(1));
    await user.click(screen.getByTestId('deploy-device-sdk'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/packages/')).toHaveLength(2));
    expect(server.callsTo('POST', '/api/v1/packages/').map((call) => call.body)).toEqual([
      { model_version: 12, kind: 'server' },
      { model_version: 12, kind: 'device' },
    ]);
  });

  it('lists the deployments already serving the version and disables everything for viewers', async () => {
    fakeApi({ 'GET /api/v1/deployments/': page([DEPLOYMENT, { ...DEPLOYMENT, id: 8, name: 'other', model_version: 11 }]) });
    renderWithApp(<DeployButtons version={VERSION} disabledReason="Viewers cannot deploy" onDeployed={vi.fn()} />);
    const serving = await screen.findByTestId('deploy-serving');
    expect(serving).toHaveTextContent('digits-api');
    expect(serving).not.toHaveTextContent('other');
    expect(screen.getByTestId('deploy-hosted')).toBeDisabled();
    expect(screen.getByTestId('deploy-device-sdk')).toBeDisabled();
  });
});
