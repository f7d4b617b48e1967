import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { DEPLOYMENT, MODEL_VERSIONS } from '../../test/fixtures';
import { DeploymentOverview } from '../DeploymentOverview';
import { withCanary } from './api';
import { RetrainButton } from './RetrainButton';
import { WarmStartPanel } from './WarmStartPanel';

const VERSION = { id: 12, name: 'V3', project: 4, dataset: 3, dataset_version: 5 };
const JOB = { id: 41, kind: 'training.run', status: 'queued' };

function routes(extra: Record<string, unknown> = {}) {
  return fakeApi({
    'GET /api/v1/datasets/': page([{ id: 3, name: 'digits' }]),
    'GET /api/v1/datasets/3/versions/': page([
      { id: 5, name: 'digits v2', dataset: 3 },
      { id: 6, name: 'digits v3', dataset: 3 },
    ]),
    ...extra,
  });
}

async function pickVersion(user: ReturnType<typeof userEvent.setup>, name: string) {
  await waitFor(() => expect(screen.getByTestId('retrain-version')).toBeEnabled());
  await user.click(screen.getByTestId('retrain-version'));
  await user.click(await screen.findByRole('option', { name, hidden: true }));
}

describe('RetrainButton', () => {
  it("retrains a model version on a version of its dataset with its own settings, then opens the job", async () => {
    const server = routes({ 'POST /api/v1/model-versions/12/retrain/': () => json(JOB, 201) });
    const user = userEvent.setup();
    renderWithApp(<RetrainButton version={VERSION} />, { route: '/model-versions/12', path: '/model-versions/:id' });
    await user.click(screen.getByTestId('retrain'));
    expect(await screen.findByTestId('retrain-submit')).toBeDisabled();
    await pickVersion(user, 'digits v3');
    await user.click(screen.getByTestId('retrain-submit'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/model-versions/12/retrain/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/model-versions/12/retrain/')[0].body).toEqual({ dataset_version: 6 });
    expect(await screen.findByTestId('elsewhere')).toBeInTheDocument(); // navigated to /jobs/41
  });

  it("retrains from a deployment's version with a preset, and shows the server's refusal", async () => {
    const server = routes({
      'POST /api/v1/deployments/7/retrain/': apiError(400, 'invalid', "warm_start_from: Tabular classification models cannot start from a version's weights."),
    });
    const user = userEvent.setup();
    renderWithApp(<RetrainButton version={{ id: 12, name: 'V3', project: 4 }} deploymentId={7} />);
    await user.click(screen.getByTestId('retrain'));
    await user.click(await screen.findByTestId('retrain-dataset'));
    await user.click(await screen.findByRole('option', { name: 'digits', hidden: true }));
    await pickVersion(user, 'digits v2');
    await user.click(screen.getByTestId('retrain-preset'));
    await user.click(await screen.findByRole('option', { name: 'Balanced preset', hidden: true }));
    await user.click(screen.getByTestId('retrain-submit'));
    expect(await screen.findByTestId('retrain-error')).toHaveTextContent('cannot start from a version');
    expect(server.callsTo('POST', '/api/v1/deployments/7/retrain/')[0].body).toEqual({ dataset_version: 5, preset: 'balanced' });
  });

  it('is disabled for viewers', () => {
    routes();
    renderWithApp(<RetrainButton version={VERSION} canEdit={false} />);
    expect(screen.getByTestId('retrain')).toBeDisabled();
  });
});

describe('DeploymentOverview retrain', () => {
  it("retrains from the served version through the deployment's route; not offered for a table model", async () => {
    const server = routes({
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
      'POST /api/v1/deployments/7/retrain/': () => json(JOB, 201),
    });
    const user = userEvent.setup();
    const { unmount } = renderWithApp(<DeploymentOverview deployment={DEPLOYMENT} onDeleted={vi.fn()} />, {
      route: '/deployments/7',
      path: '/deployments/:id',
    });
    await user.click(screen.getByTestId('retrain'));
    expect(await screen.findByText('Retrain from V3')).toBeInTheDocument();
    await user.click(await screen.findByTestId('retrain-dataset'));
    await user.click(await screen.findByRole('option', { name: 'digits', hidden: true }));
    await pickVersion(user, 'digits v3');
    await user.click(screen.getByTestId('retrain-submit'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/retrain/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/deployments/7/retrain/')[0].body).toEqual({ dataset_version: 6 });
    unmount();
    renderWithApp(<DeploymentOverview deployment={{ ...DEPLOYMENT, template: 'tabular_classification' }} onDeleted={vi.fn()} />);
    expect(screen.queryByTestId('retrain')).not.toBeInTheDocument();
  });
});

describe('WarmStartPanel', () => {
  const CHILD = { id: 13, name: 'V4', project: 4, warm_start_from: 12, warm_start_from_name: 'V3' };

  it('names the parent, links the comparison with the serving deployment and starts a 10 % canary', async () => {
    const server = fakeApi({
      'GET /api/v1/deployments/': page([DEPLOYMENT, { ...DEPLOYMENT, id: 8, name: 'other', model_version: 11, model_version_name: 'V2' }]),
      'POST /api/v1/deployments/7/traffic/': () => json(DEPLOYMENT),
    });
    const user = userEvent.setup();
    renderWithApp(<WarmStartPanel version={CHILD} />);
    expect(screen.getByTestId('warm-start-parent')).toHaveTextContent('V3');
    expect(screen.getByTestId('warm-start-parent')).toHaveAttribute('href', '/model-versions/12');
    expect(await screen.findByTestId('warm-start-compare')).toHaveAttribute('href', '/model-versions/compare?a=12&b=13');
    expect(screen.queryByTestId('warm-start-deployment-8')).not.toBeInTheDocument();
    await user.click(screen.getByTestId('warm-start-canary'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/traffic/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/deployments/7/traffic/')[0].body).toEqual({ canaries: [{ model_version: 13, weight: 10 }] });
  });

  it("shows the canary's share when the version already is one, and nothing for a version trained from scratch", async () => {
    fakeApi({
      'GET /api/v1/deployments/': page([
        { ...DEPLOYMENT, traffic: [...DEPLOYMENT.traffic, { model_version: 13, model_version_name: 'V4', role: 'canary', weight: 25 }] },
      ]),
    });
    const { unmount } = renderWithApp(<WarmStartPanel version={CHILD} />);
    expect(await screen.findByTestId('warm-start-canary-share')).toHaveTextContent('Canary at 25%');
    expect(screen.queryByTestId('warm-start-canary')).not.toBeInTheDocument();
    unmount();
    renderWithApp(<WarmStartPanel version={{ ...CHILD, warm_start_from: null, warm_start_from_name: null }} />);
    expect(screen.queryByTestId('warm-start')).not.toBeInTheDocument();
  });

  it('keeps the other canaries when adding one', () => {
    const traffic = [
      { model_version: 12, role: 'primary', weight: 70 },
      { model_version: 9, role: 'canary', weight: 20 },
      { model_version: 13, role: 'canary', weight: 5 },
      { model_version: 8, role: 'shadow', weight: 0 },
    ];
    expect(withCanary(traffic, 13, 10)).toEqual([
      { model_version: 9, weight: 20 },
      { model_version: 13, weight: 10 },
    ]);
  });
});
