import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { DEPLOYMENT, KEY, MODEL_VERSIONS } from '../test/fixtures';
import { CreateDeploymentButton } from './CreateDeploymentButton';
import { DeploymentDetail } from './DeploymentDetail';
import { DeploymentsTable } from './DeploymentsTable';

describe('DeploymentDetail', () => {
  it('shows the deployment with its tabs and hands tab changes to the route', async () => {
    fakeApi({
      'GET /api/v1/deployments/7/': json(DEPLOYMENT),
      'GET /api/v1/deployments/7/keys/': json([KEY]),
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
    });
    const onTabChange = vi.fn();
    const user = userEvent.setup();
    renderWithApp(<DeploymentDetail deploymentId={7} tab="keys" onTabChange={onTabChange} onDeleted={vi.fn()} />);
    expect(await screen.findByTestId('deployment-name')).toHaveTextContent('digits-api');
    expect(await screen.findByTestId('deployment-key-row-3')).toHaveTextContent('mobile app');
    await user.click(screen.getByTestId('deployment-tab-usage'));
    expect(onTabChange).toHaveBeenCalledWith('usage');
  });

  it('speaks Chinese: tabs, status, the overview, and why a viewer cannot stop or delete', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi({
      'GET /api/v1/deployments/7/': json(DEPLOYMENT),
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
    });
    renderWithApp(<DeploymentDetail deploymentId={7} tab="overview" canEdit={false} onTabChange={vi.fn()} onDeleted={vi.fn()} />);
    expect(await screen.findByTestId('deployment-name')).toHaveTextContent('digits-api');
    expect(screen.getByTestId('deployment-tab-try')).toHaveTextContent('在线体验');
    expect(screen.getByTestId('deployment-tab-usage')).toHaveTextContent('用量');
    expect(screen.getAllByTestId('deployment-status-7')[0]).toHaveTextContent('服务中');
    expect(screen.getByTestId('deployment-stop')).toHaveTextContent('停止');
    expect(screen.getByTestId('deployment-stop')).toBeDisabled();
    const reasons = [...document.querySelectorAll('[data-disabled-reason]')].map((node) => node.getAttribute('data-disabled-reason'));
    expect(reasons).toContain(i18n.t('common:permissions.viewerReadOnly'));
    expect(reasons.length).toBeGreaterThanOrEqual(3);
    expect(reasons.every((reason) => /[\u4e00-\u9fff]/.test(reason ?? ''))).toBe(true);
  });

  it('shows not-found for a deployment the API answers 404 for', async () => {
    fakeApi({});
    renderWithApp(<DeploymentDetail deploymentId={99} tab="overview" onTabChange={vi.fn()} onDeleted={vi.fn()} />);
    expect(await screen.findByTestId('not-found')).toHaveTextContent('This deployment does not exist');
  });
});

describe('DeploymentsTable', () => {
  it("lists a project's deployments with status, model version and endpoint", async () => {
    const server = fakeApi({
      'GET /api/v1/deployments/': page([DEPLOYMENT, { ...DEPLOYMENT, id: 8, name: 'old', status: 'stopped', model_version: 10, model_version_name: 'V1' }]),
    });
    renderWithApp(<DeploymentsTable projectId={4} />);
    const row = await screen.findByTestId('deployment-row-7');
    expect(row).toHaveTextContent('digits-api');
    expect(row).toHaveTextContent('V3');
    expect(row).toHaveTextContent(`${window.location.origin}/api/v1/deployments/7/predict/`);
    expect(screen.getByTestId('deployment-status-8')).toHaveTextContent('stopped');
    expect(screen.getByTestId('deployment-link-8')).toHaveAttribute('href', '/deployments/8');
    expect(server.calls[0].search.get('project')).toBe('4');
  });

  it('explains how to deploy when there is nothing yet', async () => {
    fakeApi({ 'GET /api/v1/deployments/': page([]) });
    renderWithApp(<DeploymentsTable projectId={4} />);
    expect(await screen.findByTestId('deployments-empty')).toHaveTextContent('Hosted API');
  });
});

describe('CreateDeploymentButton', () => {
  it('deploys a picked model version of the project under a suggested name', async () => {
    const server = fakeApi({
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
      'POST /api/v1/deployments/': (call: RecordedCall) => json({ ...DEPLOYMENT, id: 30, ...(call.body as object) }, 201),
      'GET /api/v1/deployments/': page([]),
    });
    const onDeployed = vi.fn();
    const user = userEvent.setup();
    renderWithApp(<CreateDeploymentButton projectId={4} onDeployed={onDeployed} />);
    await user.click(screen.getByTestId('create-deployment'));
    await user.click(await screen.findByTestId('create-deployment-version'));
    await user.click(await screen.findByRole('option', { name: 'V2', hidden: true }));
    expect(screen.getByTestId('create-deployment-name')).toHaveValue('v2-api');
    await user.click(screen.getByTestId('create-deployment-submit'));
    await waitFor(() => expect(onDeployed).toHaveBeenCalledTimes(1));
    expect(server.callsTo('POST', '/api/v1/deployments/')[0].body).toEqual({ project: 4, model_version: 11, name: 'v2-api' });
  });
});
