import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { DEPLOYMENT, MODEL_VERSIONS } from '../test/fixtures';
import { DeploymentDetail } from './DeploymentDetail';
import { TrafficPanel } from './TrafficPanel';

const PRIMARY_ONLY = { ...DEPLOYMENT, sticky_traffic: false, traffic: [{ model_version: 12, model_version_name: 'V3', role: 'primary' as const, weight: 100 }] };
const WITH_CANARY = {
  ...DEPLOYMENT,
  sticky_traffic: true,
  traffic: [
    { model_version: 12, model_version_name: 'V3', role: 'primary' as const, weight: 90 },
    { model_version: 11, model_version_name: 'V2', role: 'canary' as const, weight: 10 },
  ],
};
const WITH_SHADOW = {
  ...DEPLOYMENT,
  sticky_traffic: false,
  traffic: [
    { model_version: 12, model_version_name: 'V3', role: 'primary' as const, weight: 100 },
    { model_version: 10, model_version_name: 'V1', role: 'shadow' as const, weight: 0 },
  ],
};
const minute = (offset: number) => new Date(Math.floor(Date.now() / 60_000) * 60_000 - offset * 60_000).toISOString();

/** Opens a select and answers the names of its options (the page has several selects). */
async function openSelect(user: ReturnType<typeof userEvent.setup>, testId: string) {
  await waitFor(() => expect(screen.getByTestId(testId)).toBeEnabled());
  await user.click(screen.getByTestId(testId));
  const listbox = await waitFor(() => document.getElementById(screen.getByTestId(testId).getAttribute('aria-controls') ?? '') as HTMLElement);
  return within(listbox);
}

async function pick(user: ReturnType<typeof userEvent.setup>, testId: string, option: string) {
  const listbox = await openSelect(user, testId);
  await user.click(await listbox.findByRole('option', { name: option, hidden: true }));
}

async function optionNames(user: ReturnType<typeof userEvent.setup>, testId: string) {
  const listbox = await openSelect(user, testId);
  return (await listbox.findAllByRole('option', { hidden: true })).map((option) => option.textContent);
}

describe('TrafficPanel', () => {
  it('adds a canary with its share and applies the split, primary keeping the rest', async () => {
    const server = fakeApi({
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
      'POST /api/v1/deployments/7/traffic/': json(WITH_CANARY),
      'GET /api/v1/deployments/': page([]),
    });
    const user = userEvent.setup();
    renderWithApp(<TrafficPanel deployment={PRIMARY_ONLY} />);
    expect(screen.getByTestId('traffic-share-12')).toHaveAttribute('data-weight', '100');
    expect(screen.getByTestId('traffic-save')).toBeDisabled();
    expect(screen.queryByTestId('traffic-rollback')).not.toBeInTheDocument();

    // the primary is not offered
    expect(await optionNames(user, 'traffic-add-select')).toEqual(['V2', 'V1']);
    await user.keyboard('{Escape}');
    await pick(user, 'traffic-add-select', 'V2');
    await user.click(screen.getByTestId('traffic-add'));
    expect(screen.getByTestId('traffic-weight-11')).toHaveValue('10%');
    expect(screen.getByTestId('traffic-draft-summary')).toHaveTextContent('V3 (primary) answers 90% of the requests.');

    fireEvent.change(screen.getByTestId('traffic-weight-11'), { target: { value: '25' } });
    await waitFor(() => expect(screen.getByTestId('traffic-draft-summary')).toHaveTextContent('answers 75%'));
    await user.click(screen.getByTestId('traffic-sticky'));
    await user.click(screen.getByTestId('traffic-save'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/traffic/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/deployments/7/traffic/')[0].body).toEqual({ canaries: [{ model_version: 11, weight: 25 }], sticky: true });
  });

  it('refuses a split over 99 % before sending it', async () => {
    const server = fakeApi({ 'GET /api/v1/model-versions/': page(MODEL_VERSIONS) });
    const user = userEvent.setup();
    renderWithApp(<TrafficPanel deployment={WITH_CANARY} />);
    await pick(user, 'traffic-add-select', 'V1');
    await user.click(screen.getByTestId('traffic-add'));
    fireEvent.change(screen.getByTestId('traffic-weight-10'), { target: { value: '95' } });
    await waitFor(() => expect(screen.getByTestId('traffic-draft-summary')).toHaveTextContent('The canaries may take 99 % at most'));
    expect(screen.getByTestId('traffic-save')).toBeDisabled();
    // removing the canary makes the split valid again
    await user.click(screen.getByTestId('traffic-remove-11'));
    expect(screen.getByTestId('traffic-draft-summary')).toHaveTextContent('V3 (primary) answers 5% of the requests.');
    expect(screen.getByTestId('traffic-save')).toBeEnabled();
    expect(server.callsTo('POST', '/api/v1/deployments/7/traffic/')).toHaveLength(0);
  });

  it('shows the split as a bar, and promotes or rolls back a canary only after confirming', async () => {
    const server = fakeApi({
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
      'POST /api/v1/deployments/7/promote/': json({ ...PRIMARY_ONLY, model_version: 11, model_version_name: 'V2', previous_model_version: 12 }),
      'POST /api/v1/deployments/7/traffic/': json(PRIMARY_ONLY),
      'GET /api/v1/deployments/': page([]),
    });
    const user = userEvent.setup();
    renderWithApp(<TrafficPanel deployment={WITH_CANARY} />);
    expect(screen.getByTestId('traffic-share-12')).toHaveAttribute('data-weight', '90');
    expect(screen.getByTestId('traffic-share-11')).toHaveAttribute('data-role', 'canary');
    expect(screen.getByTestId('traffic-share-11')).toHaveTextContent('V2 10%');
    expect(screen.getByTestId('traffic-sticky-badge')).toBeInTheDocument();
    expect(screen.getByTestId('traffic-row-11')).toHaveTextContent('canary');

    await user.click(screen.getByTestId('traffic-promote-11'));
    expect(await screen.findByTestId('traffic-confirm-text')).toHaveTextContent('Make V2 the primary version, answering 100% of the requests instead of V3?');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByTestId('traffic-confirm-text')).not.toBeInTheDocument());
    expect(server.callsTo('POST', '/api/v1/deployments/7/promote/')).toHaveLength(0);

    await user.click(screen.getByTestId('traffic-promote-11'));
    await user.click(await screen.findByTestId('traffic-confirm'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/promote/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/deployments/7/promote/')[0].body).toEqual({ model_version: 11 });
    await waitFor(() => expect(screen.queryByTestId('traffic-confirm-text')).not.toBeInTheDocument());

    await user.click(screen.getByTestId('traffic-rollback'));
    expect(await screen.findByTestId('traffic-confirm-text')).toHaveTextContent('Remove every canary? V3 answers all requests again.');
    await user.click(screen.getByTestId('traffic-confirm'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/traffic/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/deployments/7/traffic/')[0].body).toEqual({ canaries: [] });
  });

  it('explains shadow mode when there is none and sets a shadow', async () => {
    const server = fakeApi({
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
      'POST /api/v1/deployments/7/shadow/': json(WITH_SHADOW),
      'GET /api/v1/deployments/': page([]),
    });
    const user = userEvent.setup();
    renderWithApp(<TrafficPanel deployment={WITH_CANARY} />);
    expect(screen.getByTestId('traffic-shadow-empty')).toHaveTextContent('never returned to callers');
    expect(screen.queryByTestId('shadow-agreement')).not.toBeInTheDocument();
    expect(screen.getByTestId('traffic-shadow-save')).toBeDisabled();
    // neither the primary nor a canary can be the shadow
    expect(await optionNames(user, 'traffic-shadow-select')).toEqual(['None', 'V1']);
    await user.keyboard('{Escape}');
    await pick(user, 'traffic-shadow-select', 'V1');
    await user.click(screen.getByTestId('traffic-shadow-save'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/shadow/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/deployments/7/shadow/')[0].body).toEqual({ model_version: 10 });
  });

  it('shows the shadow agreement for the chosen window and turns the shadow off', async () => {
    const server = fakeApi({
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
      'GET /api/v1/deployments/7/shadow-agreement/': (call: RecordedCall) =>
        json(
          call.search.get('window') === '24h'
            ? { shadow_version: 10, shadow_version_name: 'V1', prediction_kind: 'classification_prediction', compared: 0, agreement: null, mean_delta: null, errors: 0, points: [], deltas: [] }
            : {
                shadow_version: 10,
                shadow_version_name: 'V1',
                prediction_kind: 'classification_prediction',
                compared: 40,
                agreement: 0.875,
                mean_delta: 0.0421,
                errors: 2,
                points: [
                  { start: minute(2), compared: 20, agreement: 0.9, mean_delta: 0.04, errors: 1 },
                  { start: minute(1), compared: 20, agreement: 0.85, mean_delta: 0.044, errors: 1 },
                ],
                deltas: [
                  { low: 0, high: 0.05, count: 30 },
                  { low: 0.05, high: 0.1, count: 10 },
                ],
              },
        ),
      'POST /api/v1/deployments/7/shadow/': json(PRIMARY_ONLY),
      'GET /api/v1/deployments/': page([]),
    });
    const user = userEvent.setup();
    renderWithApp(<TrafficPanel deployment={WITH_SHADOW} />);
    expect(screen.queryByTestId('traffic-shadow-empty')).not.toBeInTheDocument();
    expect(screen.getByTestId('traffic-shadow-line')).toHaveTextContent('Shadow: V1 gets a copy of every request');
    expect(await screen.findByTestId('shadow-compared')).toHaveTextContent('40');
    expect(screen.getByTestId('shadow-agreement-value')).toHaveTextContent('87.5%');
    expect(screen.getByTestId('shadow-delta')).toHaveTextContent('0.042');
    expect(screen.getByTestId('shadow-errors')).toHaveTextContent('2');
    expect(screen.getByTestId('shadow-agreement-chart')).toBeInTheDocument();
    expect(screen.getByTestId('shadow-delta-histogram')).toHaveTextContent('Mean score difference: distribution');
    expect(server.callsTo('GET', '/api/v1/deployments/7/shadow-agreement/')[0].search.get('window')).toBe('1h');

    await user.click(within(screen.getByTestId('shadow-agreement')).getByText('Last 24 hours'));
    expect(await screen.findByTestId('shadow-nothing')).toHaveTextContent('Nothing compared yet: V1 gets the next requests.');
    expect(screen.getByTestId('shadow-agreement-value')).toHaveTextContent('—');

    // picking None turns the shadow off
    await pick(user, 'traffic-shadow-select', 'None');
    expect(screen.getByTestId('traffic-shadow-save')).toHaveTextContent('Turn the shadow off');
    await user.click(screen.getByTestId('traffic-shadow-save'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/shadow/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/deployments/7/shadow/')[0].body).toEqual({ model_version: null });
  });

  it('lets a viewer see the split but change nothing, and speaks Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi({ 'GET /api/v1/model-versions/': page(MODEL_VERSIONS) });
    renderWithApp(<TrafficPanel deployment={WITH_CANARY} canEdit={false} />);
    expect(screen.getByTestId('traffic-promote-11')).toBeDisabled();
    expect(screen.getByTestId('traffic-promote-11')).toHaveTextContent('提升到 100%');
    expect(screen.getByTestId('traffic-rollback')).toBeDisabled();
    expect(screen.getByTestId('traffic-save')).toBeDisabled();
    expect(screen.getByTestId('traffic-shadow-save')).toBeDisabled();
    expect(screen.getByTestId('traffic-shadow-empty')).toHaveTextContent('影子模式');
    expect(screen.getByTestId('traffic-row-11')).toHaveTextContent('金丝雀');
  });

  it('is the Traffic tab of the deployment page, which shows the split the server answered after applying', async () => {
    const server = fakeApi({
      'GET /api/v1/deployments/7/': json(PRIMARY_ONLY),
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
      'POST /api/v1/deployments/7/traffic/': json(WITH_CANARY),
      'GET /api/v1/deployments/': page([]),
    });
    const user = userEvent.setup();
    renderWithApp(<DeploymentDetail deploymentId={7} tab="traffic" onTabChange={vi.fn()} onDeleted={vi.fn()} />);
    expect(await screen.findByTestId('traffic-share-12')).toHaveAttribute('data-weight', '100');
    expect(screen.getByTestId('deployment-tab-traffic')).toHaveTextContent('Traffic');
    await pick(user, 'traffic-add-select', 'V2');
    await user.click(screen.getByTestId('traffic-add'));
    await user.click(screen.getByTestId('traffic-save'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/traffic/')).toHaveLength(1));
    // the answer replaces the cached deployment: the bar and the editor follow it
    await waitFor(() => expect(screen.getByTestId('traffic-share-12')).toHaveAttribute('data-weight', '90'));
    expect(screen.getByTestId('traffic-share-11')).toHaveAttribute('data-weight', '10');
    expect(screen.getByTestId('traffic-sticky-badge')).toBeInTheDocument();
    expect(screen.getByTestId('traffic-sticky')).toBeChecked();
    expect(screen.getByTestId('traffic-save')).toBeDisabled();
  });

  it("shows the server's refusal of a shadow in the reader's language and keeps the choice", async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi({
      'GET /api/v1/model-versions/': page(MODEL_VERSIONS),
      'POST /api/v1/deployments/7/shadow/': apiError(400, 'shadow_invalid', 'This model version cannot shadow the deployment.'),
    });
    const user = userEvent.setup();
    renderWithApp(<TrafficPanel deployment={PRIMARY_ONLY} />);
    await pick(user, 'traffic-shadow-select', 'V1');
    await user.click(screen.getByTestId('traffic-shadow-save'));
    expect(await screen.findByText(/该模型版本不能作为此部署的影子版本/)).toBeInTheDocument();
    expect(screen.getByTestId('traffic-shadow-select')).toHaveValue('V1');
    expect(screen.getByTestId('traffic-shadow-save')).toBeEnabled();
  });
});
