import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useLocation } from 'react-router';
import { describe, expect, it } from 'vitest';
import { apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { SmartLabelingPanel } from './SmartLabelingPanel';

function LocationProbe() {
  const location = useLocation();
  return <div data-testid="location">{location.pathname + location.search}</div>;
}

const LABELS = [
  { id: 11, name: '五', color: '', key: '1', sample_count: 5, created_at: '2026-12-01T10:00:00Z' },
  { id: 12, name: '六', color: '', key: '2', sample_count: 1, created_at: '2026-12-01T10:00:00Z' },
];

function dataset(overrides: Record<string, unknown> = {}) {
  return { id: 1, workspace: 1, project: 1, name: 'digits', description: '', task_type: 'image_classification', sample_count: 100, labeled_count: 6, label_count: 2, schema: {}, created_by: 'admin', created_at: '2026-12-01T10:00:00Z', ...overrides };
}

const SUMMARY = {
  kind: 'smart_labeling_summary',
  version: 1,
  model: 'quick',
  strategy: 'uncertainty_diversity',
  labeled: 12,
  unlabeled: 88,
  ranked: 3,
  estimated_accuracy: 0.912,
  per_class_suggested: [60, 28],
  confidence_histogram: [0, 0, 0, 1, 2, 5, 10, 20, 25, 25],
  seconds: 3.2,
};

function round(overrides: Record<string, unknown> = {}) {
  return { id: 7, dataset: 1, number: 2, status: 'succeeded', job: 70, params: { batch_size: 3, strategy: 'uncertainty_diversity', seed: 0 }, summary: SUMMARY, error: '', progress: { kind: 'progress', version: 1, fraction: 1 }, created_at: '2026-12-05T00:10:00Z', finished_at: '2026-12-05T00:11:00Z', ...overrides };
}

function suggestion(id: number, sampleId: number, label: number, confidence: number, rank: number | null) {
  return {
    id,
    round: 7 as number | null,
    source: 'smart_round',
    captured_request: null as number | null,
    deployment: null as number | null,
    deployment_name: null as string | null,
    sample: { id: sampleId, original_name: `img_${sampleId}.png`, thumbnail_url: `/t/${sampleId}`, text: '', width: 8, height: 8 },
    label,
    label_name: LABELS.find((item) => item.id === label)?.name ?? null,
    confidence,
    scores: [],
    boxes: [],
    value: null,
    priority: 1 - confidence,
    rank,
    status: 'pending',
  };
}

const SUGGESTIONS = [suggestion(101, 31, 11, 0.97, 2), suggestion(102, 32, 11, 0.96, null), suggestion(103, 33, 12, 0.41, 1), suggestion(104, 34, 11, 0.5, 3)];

/** A deployment's served answer to a captured request sent to the dataset (no round, no rank). */
function productionSuggestion(id: number, sampleId: number, label: number, confidence: number) {
  return { ...suggestion(id, sampleId, label, confidence, null), round: null, source: 'capture', captured_request: 900 + id, deployment: 4, deployment_name: 'digits-api' };
}

/** The server's source filter: capture lists only suggestions from production, smart_round only the rounds'. */
function bySource<T extends { source: string }>(call: RecordedCall, rows: T[]): T[] {
  const source = call.search.get('source');
  return source === null ? rows : rows.filter((row) => row.source === source);
}

/** Answers the suggestion list like the server: status/label/confidence filters, rank ordering (ranked first). */
function suggestionList(call: RecordedCall) {
  const label = call.search.get('label');
  const min = Number(call.search.get('min_confidence') ?? 0);
  const max = Number(call.search.get('max_confidence') ?? 1);
  let rows = bySource(call, SUGGESTIONS).filter((row) => (label === null || row.label === Number(label)) && row.confidence >= min && row.confidence <= max);
  if (call.search.get('ordering') === 'rank') rows = [...rows].sort((a, b) => (a.rank ?? 1e9) - (b.rank ?? 1e9));
  const size = Number(call.search.get('page_size') ?? 48);
  return json({ count: rows.length, next: null, previous: null, results: rows.slice(0, size) });
}

function server(routes: Record<string, unknown> = {}) {
  return fakeApi({
    'GET /api/v1/datasets/1/': json(dataset()),
    'GET /api/v1/datasets/1/labels/': page(LABELS),
    'GET /api/v1/datasets/1/smart-labeling/': page([round()]),
    'GET /api/v1/datasets/1/suggestions/': suggestionList,
    ...routes,
  });
}

describe('SmartLabelingPanel', () => {
  it('says why a round cannot start while too few classes have two labels', async () => {
    server({ 'GET /api/v1/datasets/1/smart-labeling/': page([]) });
    renderWithApp(<SmartLabelingPanel datasetId={1} canEdit />);
    const start = await screen.findByTestId('smart-start');
    expect(start).toBeDisabled();
    // 五 has 5 labels, 六 only 1: one class qualifies.
    expect(screen.getByTestId('smart-start-reason')).toHaveTextContent('Label at least 2 samples in each of 2 classes first (now 1 class has 2 or more).');
    expect(screen.getByTestId('smart-no-rounds')).toBeInTheDocument();
  });

  it('starts a round with the chosen batch size and strategy, then shows its live progress', async () => {
    const labels = [LABELS[0], { ...LABELS[1], sample_count: 3 }];
    let rounds: unknown[] = [];
    const api = server({
      'GET /api/v1/datasets/1/labels/': page(labels),
      'GET /api/v1/datasets/1/smart-labeling/': () => json(page(rounds)),
      'POST /api/v1/datasets/1/smart-labeling/': (call: RecordedCall) => {
        rounds = [round({ id: 8, number: 3, status: 'running', job: 80, summary: null, params: call.body, progress: { kind: 'progress', version: 1, fraction: 0.4, message: 'Training the quick model' } })];
        return json(rounds[0], 202);
      },
    });
    renderWithApp(<SmartLabelingPanel datasetId={1} canEdit />);
    await waitFor(() => expect(screen.getByTestId('smart-start')).toBeEnabled());
    const batch = screen.getByTestId('smart-batch-size');
    await userEvent.clear(batch);
    await userEvent.type(batch, '20');
    await userEvent.click(screen.getByTestId('smart-strategy'));
    await userEvent.click(await screen.findByRole('option', { name: 'Uncertainty only', hidden: true }));
    await userEvent.click(screen.getByTestId('smart-start'));
    await waitFor(() => expect(api.callsTo('POST', '/api/v1/datasets/1/smart-labeling/')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/v1/datasets/1/smart-labeling/')[0].body).toEqual({ batch_size: 20, strategy: 'uncertainty' });
    const running = await screen.findByTestId('smart-running');
    expect(await within(running).findByTestId('job-progress-80')).toHaveAttribute('data-value', '40');
    expect(within(running).getByTestId('job-progress-message-80')).toHaveTextContent('Training the quick model');
    // One round at a time: the button says so.
    expect(screen.getByTestId('smart-start')).toBeDisabled();
  });

  it("shows the round's summary and opens the labeler on the ranked samples in rank order", async () => {
    server();
    renderWithApp(
      <>
        <SmartLabelingPanel datasetId={1} canEdit />
        <LocationProbe />
      </>,
      { route: '/datasets/1/smart' },
    );
    expect(await screen.findByTestId('smart-accuracy')).toHaveTextContent('91.2%');
    expect(screen.getByTestId('smart-confidence-chart')).toHaveAttribute('data-points', '10');
    expect(screen.getByTestId('smart-class-chart')).toHaveAttribute('data-points', '2');
    await userEvent.click(screen.getByTestId('smart-label-next'));
    // Ranks 1, 2, 3 are samples 33, 31, 34 (the unranked 32 is left out).
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/datasets/1/label?samples=33,31,34'));
  });

  it('accepts every suggestion of a class above a confidence in bulk, showing the count first', async () => {
    const api = server({ 'POST /api/v1/datasets/1/suggestions/accept/': json({ accepted: 2, skipped: [] }) });
    renderWithApp(<SmartLabelingPanel datasetId={1} canEdit />);
    const bulk = await screen.findByTestId('suggestions-bulk-accept');
    expect(bulk).toBeDisabled();
    expect(bulk.closest('[data-disabled-reason]')).toHaveAttribute('data-disabled-reason', 'Pick a class first: bulk accept takes one class at a time.');
    await userEvent.click(screen.getByTestId('suggestions-class'));
    await userEvent.click(await screen.findByRole('option', { name: '五', hidden: true }));
    // Picking a class sets the floor to 0.95: two of 五's three suggestions match.
    await waitFor(() => expect(screen.getByTestId('suggestions-bulk-accept')).toHaveTextContent('Accept all ≥ 0.95 for class 五 (2)'));
    expect(screen.getByTestId('suggestions-count')).toHaveAttribute('data-count', '2');
    await userEvent.click(screen.getByTestId('suggestions-bulk-accept'));
    expect(await screen.findByTestId('suggestions-bulk-summary')).toHaveTextContent('2 samples will be labeled 五');
    expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')).toHaveLength(0);
    await userEvent.click(screen.getByTestId('suggestions-bulk-confirm-button'));
    await waitFor(() => expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')[0].body).toEqual({ label: 11, min_confidence: 0.95, round: 7 });
  });

  it('accepts one, rejects a selection, and says what went wrong', async () => {
    const api = server({
      'POST /api/v1/datasets/1/suggestions/accept/': apiError(409, 'round_running', 'A round is running.'),
      'POST /api/v1/datasets/1/suggestions/reject/': json({ rejected: 2 }),
    });
    renderWithApp(<SmartLabelingPanel datasetId={1} canEdit />);
    await userEvent.click(await screen.findByTestId('suggestion-accept-103'));
    await waitFor(() => expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')[0].body).toEqual({ ids: [103] });
    expect(await screen.findByText('Suggestions not accepted')).toBeInTheDocument();
    const rows = screen.getByTestId('suggestions-table');
    await userEvent.click(within(rows).getByRole('checkbox', { name: 'Select img_31.png' }));
    await userEvent.click(within(rows).getByRole('checkbox', { name: 'Select img_34.png' }));
    await userEvent.click(screen.getByTestId('suggestions-reject-selected'));
    await waitFor(() => expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/reject/')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/reject/')[0].body).toEqual({ ids: [101, 104] });
  });

  it('lets a viewer read but not decide', async () => {
    server();
    renderWithApp(<SmartLabelingPanel datasetId={1} canEdit={false} />);
    expect(await screen.findByTestId('suggestion-accept-101')).toBeDisabled();
    expect(screen.getByTestId('smart-start')).toBeDisabled();
  });

  it('accepts suggested boxes keeping those above a score, and shows a regression value', async () => {
    const boxes = { ...suggestion(201, 41, 11, 0.7, 1), label: null, label_name: null, boxes: [{ label: 11, x: 1, y: 1, width: 5, height: 5, score: 0.9 }, { label: 12, x: 9, y: 9, width: 5, height: 5, score: 0.3 }] };
    const api = server({
      'GET /api/v1/datasets/1/': json(dataset({ task_type: 'object_detection', labeled_count: 5 })),
      'GET /api/v1/datasets/1/suggestions/': (call: RecordedCall) => json(page(bySource(call, [boxes, { ...suggestion(202, 42, 11, 0.5, null), label: null, label_name: null, value: 12.5 }]))),
      'POST /api/v1/datasets/1/suggestions/accept/': json({ accepted: 1, skipped: [] }),
    });
    renderWithApp(<SmartLabelingPanel datasetId={1} canEdit />);
    const row = await screen.findByTestId('suggestion-row-201');
    expect(within(row).getByTestId('suggestion-chip')).toHaveTextContent('suggested: 2 boxes 0.70');
    expect(within(screen.getByTestId('suggestion-row-202')).getByTestId('suggestion-chip')).toHaveTextContent('suggested: 12.5 0.50');
    // Bulk accept by class is for classification: detection accepts a selection or one at a time.
    expect(screen.queryByTestId('suggestions-bulk-accept')).toBeNull();
    const minScore = screen.getByTestId('suggestions-min-score');
    await userEvent.clear(minScore);
    await userEvent.type(minScore, '0.5');
    await userEvent.click(screen.getByTestId('suggestion-accept-201'));
    await waitFor(() => expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')[0].body).toEqual({ ids: [201], min_score: 0.5 });
  });

  it('lists suggestions from production apart, saying which deployment answered, and accepts them like others', async () => {
    const production = [productionSuggestion(301, 51, 12, 0.38), productionSuggestion(302, 52, 11, 0.44)];
    const api = server({
      'GET /api/v1/datasets/1/suggestions/': (call: RecordedCall) => {
        const rows = call.search.get('source') === 'capture' ? production : bySource(call, SUGGESTIONS);
        return json({ count: rows.length, next: null, previous: null, results: rows.slice(0, Number(call.search.get('page_size') ?? 48)) });
      },
      'POST /api/v1/datasets/1/suggestions/accept/': json({ accepted: 1, skipped: [] }),
    });
    renderWithApp(<SmartLabelingPanel datasetId={1} canEdit />);
    const table = await screen.findByTestId('production-suggestions');
    const row = await within(table).findByTestId('suggestion-row-301');
    expect(within(table).getByTestId('suggestions-count')).toHaveTextContent('2 suggestions from production');
    expect(within(row).getByTestId('suggestion-chip')).toHaveTextContent('suggested: 六 0.38');
    expect(within(row).getByTestId('suggestion-chip-production')).toHaveTextContent('From production (digits-api)');
    // The round's own table does not list them, and production ones are not bulk-accepted by class.
    expect(within(screen.getByTestId('suggestions')).queryByTestId('suggestion-row-301')).toBeNull();
    expect(within(table).queryByTestId('suggestions-bulk-accept')).toBeNull();
    await userEvent.click(within(row).getByTestId('suggestion-accept-301'));
    await waitFor(() => expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')[0].body).toEqual({ ids: [301] });
    expect(within(row).getByTestId('suggestion-correct-301')).toHaveAttribute('href', '/datasets/1/label?samples=51');
    expect(within(table).getByTestId('production-label')).toHaveAttribute('href', '/datasets/1/label?samples=51,52');
    expect(within(table).getByTestId('production-label')).toHaveTextContent('Label these 2 in the labeler');
  });

  it('shows no production table while none is pending', async () => {
    server();
    renderWithApp(<SmartLabelingPanel datasetId={1} canEdit />);
    expect(await screen.findByTestId('suggestion-row-101')).toBeInTheDocument();
    expect(screen.queryByTestId('production-suggestions')).toBeNull();
  });
});
