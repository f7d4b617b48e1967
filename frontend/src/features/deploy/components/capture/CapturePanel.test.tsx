import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { CapturePanel } from './CapturePanel';

const MB = 1_000_000;

function policy(overrides: Record<string, unknown> = {}) {
  return {
    enabled: false,
    sample_rate: 0.1,
    retention_days: 7,
    max_bytes: 100 * MB,
    low_confidence_below: null,
    shadow_disagreement: false,
    labels: [],
    stored_bytes: 0,
    stored_count: 0,
    updated_at: '2026-12-05T03:00:00Z',
    updated_by: null,
    ...overrides,
  };
}

function capture(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    at: '2026-12-05T03:10:00Z',
    model_version: 3,
    model_version_name: 'digits v1',
    reason: 'low_confidence',
    data_kind: 'image',
    content_type: 'image/png',
    size_bytes: 300,
    answer: { label: '7', score: 0.41, },
    shadow_version: null,
    shadow_answer: null,
    sent_to_sample: null,
    sent_to_dataset: null,
    content_url: `/api/v1/deployments/7/captures/${id}/content/`,
    text: null,
    row: null,
    ...overrides,
  };
}

describe('CapturePanel', () => {
  it('says capture is off by default and what it stores, and turns it on for low-confidence requests', async () => {
    const server = fakeApi({
      'GET /api/v1/deployments/7/capture/': policy(),
      'PUT /api/v1/deployments/7/capture/': (call: RecordedCall) => json(policy(call.body as Record<string, unknown>)),
      'GET /api/v1/deployments/7/captures/': page([]),
      'GET /api/v1/deployments/7/': json({}),
    });
    const user = userEvent.setup();
    renderWithApp(<CapturePanel deploymentId={7} projectId={2} canEdit />);
    const statement = await screen.findByTestId('capture-statement');
    expect(statement).toHaveTextContent('the input (the image, the text or the row), the answer it served');
    expect(statement).toHaveTextContent('deleted after 7 days');
    expect(statement).toHaveTextContent('Capture is off (the default)');
    expect(screen.getByTestId('capture-save')).toBeDisabled();
    expect(await screen.findByTestId('captures-empty')).toBeInTheDocument();

    await user.click(screen.getByTestId('capture-enabled'));
    await user.click(screen.getByTestId('capture-low-confidence-on'));
    const threshold = screen.getByTestId('capture-low-confidence');
    await user.clear(threshold);
    await user.type(threshold, '0.6');
    const rate = screen.getByTestId('capture-sample-rate');
    await user.clear(rate);
    await user.type(rate, '100');
    await user.click(screen.getByTestId('capture-save'));

    await waitFor(() => expect(server.callsTo('PUT', '/api/v1/deployments/7/capture/')).toHaveLength(1));
    expect(server.callsTo('PUT', '/api/v1/deployments/7/capture/')[0].body).toEqual({
      enabled: true,
      sample_rate: 1,
      retention_days: 7,
      max_bytes: 100 * MB,
      low_confidence_below: 0.6,
      shadow_disagreement: false,
      labels: [],
    });
    await waitFor(() => expect(screen.getByTestId('capture-policy')).toHaveAttribute('data-enabled', 'true'));
    expect(screen.getByTestId('capture-statement')).toHaveTextContent('Capture is on');
  });

  it('shows the storage used against the cap', async () => {
    fakeApi({
      'GET /api/v1/deployments/7/capture/': policy({ enabled: true, stored_count: 12, stored_bytes: 75 * MB }),
      'GET /api/v1/deployments/7/captures/': page([]),
    });
    renderWithApp(<CapturePanel deploymentId={7} projectId={2} canEdit />);
    const storage = await screen.findByTestId('capture-storage');
    expect(storage).toHaveTextContent('12 captures kept');
    expect(storage).toHaveTextContent('75 MB of 100 MB');
    expect(screen.getByRole('progressbar', { name: '75% of the size cap used' })).toBeInTheDocument();
  });

  it('lists captures with their answers, filters them and sends the selected ones to a dataset', async () => {
    const server = fakeApi({
      'GET /api/v1/deployments/7/capture/': policy({ enabled: true, stored_count: 3, stored_bytes: 900 }),
      'GET /api/v1/deployments/7/captures/': (call: RecordedCall) =>
        json(
          page(
            call.search.get('reason') === 'disagreement'
              ? [capture(3, { reason: 'disagreement', shadow_version: 4, shadow_answer: { label: '1', score: 0.9, } })]
              : [
                  capture(1),
                  capture(2, { data_kind: 'text', text: 'a captured sentence', content_type: 'text/plain', answer: { label: 'spam', score: 0.3, } }),
                  capture(3, { reason: 'disagreement', shadow_version: 4, shadow_answer: { label: '1', score: 0.9, }, sent_to_sample: 99, sent_to_dataset: 5 }),
                ],
          ),
        ),
      'GET /api/v1/datasets/': page([{ id: 5, name: 'digits', sample_count: 100, task_type: 'image_classification' }]),
      'POST /api/v1/deployments/7/captures/send/': { dataset: 5, samples_created: 1, suggestions_created: 1, skipped: [{ id: 2, reason: 'wrong_kind', detail: 'a text, the dataset holds images' }] },
    });
    const user = userEvent.setup();
    renderWithApp(<CapturePanel deploymentId={7} projectId={2} canEdit />);
    expect(await screen.findByTestId('capture-image-1')).toHaveAttribute('src', '/api/v1/deployments/7/captures/1/content/');
    expect(screen.getByTestId('capture-answer-1')).toHaveTextContent('7 0.41');
    expect(screen.getByTestId('capture-preview-2')).toHaveTextContent('a captured sentence');
    expect(screen.getByTestId('capture-shadow-3')).toHaveTextContent('1 0.90');
    expect(screen.getByTestId('capture-row-1')).toHaveTextContent('Low confidence');
    expect(screen.getByTestId('capture-sent-3')).toHaveAttribute('href', '/datasets/5/label?samples=99');

    await user.click(screen.getByTestId('capture-select-1'));
    await user.click(screen.getByTestId('capture-select-2'));
    await user.click(screen.getByTestId('captures-send'));
    expect(await screen.findByTestId('capture-send-confirm')).toBeDisabled();
    await user.click(screen.getByTestId('capture-send-dataset'));
    await user.click(await screen.findByRole('option', { name: /digits/, hidden: true }));
    await user.click(screen.getByTestId('capture-send-confirm'));

    const result = await screen.findByTestId('capture-send-result');
    expect(server.callsTo('POST', '/api/v1/deployments/7/captures/send/')[0].body).toEqual({ dataset: 5, ids: [1, 2] });
    expect(result).toHaveTextContent('1 sample created with 1 suggestions');
    expect(within(result).getByTestId('capture-send-skipped')).toHaveTextContent("Capture 2: not an input of this dataset's kind");
    expect(within(result).getByTestId('capture-send-open')).toHaveAttribute('href', '/datasets/5/label');

    await user.click(screen.getByText('Close'));
    await user.click(screen.getByTestId('captures-reason'));
    await user.click(await screen.findByRole('option', { name: 'Shadow disagreed', hidden: true }));
    await waitFor(() => expect(screen.queryByTestId('capture-row-1')).not.toBeInTheDocument());
    expect(server.callsTo('GET', '/api/v1/deployments/7/captures/').at(-1)?.search.get('reason')).toBe('disagreement');
  });

  it('deletes the selected captures and, after a confirmation, all of them', async () => {
    const server = fakeApi({
      'GET /api/v1/deployments/7/capture/': policy({ enabled: true }),
      'GET /api/v1/deployments/7/captures/': page([capture(1), capture(2)]),
      'POST /api/v1/deployments/7/captures/delete/': (call: RecordedCall) => json({ deleted: (call.body as { all?: boolean }).all ? 2 : 1 }),
    });
    const user = userEvent.setup();
    renderWithApp(<CapturePanel deploymentId={7} projectId={2} canEdit />);
    await user.click(await screen.findByTestId('capture-select-2'));
    await user.click(screen.getByTestId('captures-delete-selected'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/captures/delete/')).toHaveLength(1));
    expect(server.calls.find((call) => call.method === 'POST')?.body).toEqual({ ids: [2], all: false });
    expect(await screen.findByText('1 capture deleted.')).toBeInTheDocument();

    await user.click(screen.getByTestId('captures-delete-all'));
    await user.click(await screen.findByTestId('captures-delete-all-confirm'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/deployments/7/captures/delete/')).toHaveLength(2));
    expect(server.callsTo('POST', '/api/v1/deployments/7/captures/delete/')[1].body).toEqual({ all: true });
  });

  it('lets viewers read the policy and captures but change nothing', async () => {
    fakeApi({
      'GET /api/v1/deployments/7/capture/': policy({ enabled: true }),
      'GET /api/v1/deployments/7/captures/': page([capture(1)]),
    });
    const user = userEvent.setup();
    renderWithApp(<CapturePanel deploymentId={7} projectId={2} canEdit={false} />);
    expect(await screen.findByTestId('capture-row-1')).toBeInTheDocument();
    expect(screen.getByTestId('capture-enabled')).toBeDisabled();
    expect(screen.getByTestId('capture-save')).toBeDisabled();
    await user.click(screen.getByTestId('capture-select-1'));
    expect(screen.getByTestId('captures-send')).toBeDisabled();
    expect(screen.getByTestId('captures-delete-selected')).toBeDisabled();
  });

  it('filters captures by the version that answered when a canary serves too, and says who last changed the policy', async () => {
    const server = fakeApi({
      'GET /api/v1/deployments/7/capture/': policy({ enabled: true, updated_by: 'alice', updated_at: '2026-12-05T03:00:00Z' }),
      'GET /api/v1/deployments/7/captures/': (call: RecordedCall) =>
        json(page(call.search.get('model_version') === '5' ? [capture(2, { model_version: 5, model_version_name: 'V2' })] : [capture(1), capture(2, { model_version: 5, model_version_name: 'V2' })])),
      'GET /api/v1/deployments/7/': {
        id: 7,
        project: 2,
        traffic: [
          { model_version: 3, model_version_name: 'V1', role: 'primary', weight: 90 },
          { model_version: 5, model_version_name: 'V2', role: 'canary', weight: 10 },
          { model_version: 6, model_version_name: 'V3', role: 'shadow', weight: 0 },
        ],
      },
    });
    const user = userEvent.setup();
    renderWithApp(<CapturePanel deploymentId={7} projectId={2} canEdit />);
    expect(await screen.findByTestId('capture-updated')).toHaveTextContent('Last changed by alice');
    await user.click(await screen.findByTestId('captures-version'));
    expect(screen.queryByRole('option', { name: 'V3', hidden: true })).toBeNull();
    await user.click(await screen.findByRole('option', { name: 'V2', hidden: true }));
    await waitFor(() => expect(screen.queryByTestId('capture-row-1')).not.toBeInTheDocument());
    expect(screen.getByTestId('capture-row-2')).toBeInTheDocument();
    expect(server.callsTo('GET', '/api/v1/deployments/7/captures/').at(-1)?.search.get('model_version')).toBe('5');
  });
});
