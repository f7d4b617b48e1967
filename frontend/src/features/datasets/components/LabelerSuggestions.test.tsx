import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { GhostBox } from './detection/BoxCanvas';
import { BoxLabeler } from './detection/BoxLabeler';
import { DetectionGrid } from './detection/DetectionGrid';
import { LabelingPanel } from './LabelingPanel';
import { sampleFixture } from './sampleFixture';

// Konva needs a real canvas: the stand-in reports the suggested boxes it was given (the canvas itself
// runs in the browser end-to-end test).
vi.mock('./detection/BoxCanvas', () => ({
  BoxCanvas: ({ boxes, suggested = [] }: { boxes: unknown[]; suggested?: GhostBox[] }) => (
    <div data-testid="canvas-stand-in" data-boxes={boxes.length}>
      {suggested.map((box) => (
        <span key={box.key} data-testid="ghost-box" data-label={box.label} data-score={box.score} />
      ))}
    </div>
  ),
}));

const LABELS = [
  { id: 11, name: '五', color: '', sample_count: 1, created_at: '2026-12-01T10:00:00Z' },
  { id: 12, name: '六', color: '', sample_count: 0, created_at: '2026-12-01T10:00:00Z' },
];

const SUGGESTION = { id: 501, label: 12, label_name: '六', confidence: 0.97, boxes: [], round: 7 };

describe('suggestions in the classification labeler', () => {
  function server() {
    // Sample 1 is labeled by a person (its stale suggestion must not show); 2 has a pending suggestion; 3 none.
    const samples = new Map([
      [1, sampleFixture(1, { label: 11, label_name: '五', label_version: 1, suggestion: { ...SUGGESTION, id: 500 } })],
      [2, sampleFixture(2, { suggestion: SUGGESTION })],
      [3, sampleFixture(3, { suggestion: null })],
    ]);
    const api = fakeApi({
      'GET /api/v1/datasets/1/': json({ id: 1, task_type: 'image_classification' }),
      'GET /api/v1/datasets/1/labels/': page(LABELS),
      'GET /api/v1/datasets/1/samples/': () => {
        const results = [...samples.values()];
        const labeled = results.filter((item) => item.label !== null).length;
        return json({ ...page(results), counts: { total: 3, labeled, unlabeled: 3 - labeled, per_label: [] } });
      },
      'PATCH /api/v1/datasets/1/samples/2/': (call: RecordedCall) => {
        const body = call.body as { label: number; label_version: number };
        samples.set(2, sampleFixture(2, { label: body.label, label_name: '五', label_version: 1, suggestion: null }));
        return json(samples.get(2));
      },
      'POST /api/v1/datasets/1/suggestions/accept/': (call: RecordedCall) => {
        const ids = (call.body as { ids: number[] }).ids;
        if (ids.includes(501)) samples.set(2, sampleFixture(2, { label: 12, label_name: '六', label_version: 1, suggestion: null }));
        return json({ accepted: ids.length, skipped: [] });
      },
    });
    return api;
  }

  it('shows a pending suggestion apart from human labels, accepts it with A, and drops it once labeled', async () => {
    const api = server();
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    const suggested = await screen.findByTestId('sample-tile-2');
    // A ghost chip, not a label: the tile still has no label.
    expect(within(suggested).getByTestId('sample-suggestion-2')).toHaveTextContent('≈ 六 0.97');
    expect(within(suggested).getByTestId('sample-suggestion-2')).toHaveAttribute('aria-label', 'suggested: 六 0.97');
    expect(suggested).toHaveAttribute('data-label', '');
    expect(suggested).toHaveAttribute('data-suggestion', '501');
    // A person's label wins over a suggestion: sample 1 shows its label only.
    expect(within(screen.getByTestId('sample-tile-1')).queryByTestId('sample-suggestion-1')).toBeNull();
    expect(within(screen.getByTestId('sample-tile-1')).getByText('五')).toBeInTheDocument();
    expect(screen.queryByTestId('preview-suggestion')).toBeNull();

    fireEvent.click(suggested);
    expect(await screen.findByTestId('preview-suggestion-chip')).toHaveTextContent('suggested: 六 0.97');
    fireEvent.keyDown(document.body, { key: 'a' });
    await waitFor(() => expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')[0].body).toEqual({ ids: [501] });
    // Read again: the sample is labeled, the chip is gone and its label shows.
    await waitFor(() => expect(screen.getByTestId('sample-tile-2')).toHaveAttribute('data-label', '12'));
    expect(within(screen.getByTestId('sample-tile-2')).queryByTestId('sample-suggestion-2')).toBeNull();
  });

  it('corrects a suggestion with the usual label key, never accepting it', async () => {
    const api = server();
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    fireEvent.click(await screen.findByTestId('sample-tile-2'));
    await screen.findByTestId('preview-suggestion-chip');
    // Key 1 is 五: the person's label, not the suggestion's 六.
    fireEvent.keyDown(document.body, { key: '1' });
    await waitFor(() => expect(api.callsTo('PATCH', '/api/v1/datasets/1/samples/2/')).toHaveLength(1));
    expect(api.callsTo('PATCH', '/api/v1/datasets/1/samples/2/')[0].body).toEqual({ label: 11, label_version: 0 });
    await waitFor(() => expect(within(screen.getByTestId('sample-tile-2')).queryByTestId('sample-suggestion-2')).toBeNull());
    expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')).toHaveLength(0);
  });
});

describe('suggested boxes in the box labeler', () => {
  function detectionServer(suggestion: unknown) {
    const state = { status: 'unlabeled', revision: 0, annotations: [] as unknown[] };
    const sample = () => sampleFixture(6, { annotation_status: state.status, box_count: state.annotations.length, box_labels: [], width: 96, height: 64, suggestion: state.status === 'unlabeled' ? suggestion : null });
    const api = fakeApi({
      'GET /api/v1/datasets/1/labels/': page(LABELS),
      'GET /api/v1/datasets/1/samples/': () => json({ ...page([sample()]), counts: { total: 1, labeled: 0, unlabeled: 1, per_label: [] } }),
      'GET /api/v1/datasets/1/samples/6/': () => json(sample()),
      'GET /api/v1/datasets/1/samples/6/annotations/': () => json({ sample: 6, width: 96, height: 64, ...state }),
      'POST /api/v1/datasets/1/suggestions/accept/': () => {
        Object.assign(state, { status: 'annotated', revision: 1, annotations: [{ id: 9, kind: 'box', label: '六', geometry: { x: 10, y: 12, width: 30, height: 20 } }] });
        return json({ accepted: 1, skipped: [] });
      },
    });
    return api;
  }

  it('draws the suggested boxes dashed with their scores and accepts them as the image boxes', async () => {
    const api = detectionServer({ id: 601, label: null, label_name: null, confidence: 0.81, boxes: [{ label: 12, x: 10, y: 12, width: 30, height: 20, score: 0.81 }], round: 7 });
    renderWithApp(<BoxLabeler datasetId={1} sampleId={6} canEdit filters={{ label: null, search: '', page: 1 }} gridLink="/datasets/1/label" onNavigate={vi.fn()} />);
    expect(await screen.findByTestId('labeler-suggestion-chip')).toHaveTextContent('suggested: 1 box 0.81');
    const ghost = screen.getByTestId('ghost-box');
    expect(ghost).toHaveAttribute('data-label', '六');
    expect(ghost).toHaveAttribute('data-score', '0.81');
    // Not the image's own boxes: the labeler still has none.
    expect(screen.getByTestId('box-labeler')).toHaveAttribute('data-status', 'unlabeled');
    expect(screen.getByTestId('canvas-stand-in')).toHaveAttribute('data-boxes', '0');

    fireEvent.click(screen.getByTestId('labeler-accept-boxes'));
    await waitFor(() => expect(screen.getByTestId('box-labeler')).toHaveAttribute('data-status', 'annotated'));
    expect(api.callsTo('POST', '/api/v1/datasets/1/suggestions/accept/')[0].body).toEqual({ ids: [601] });
    expect(screen.getByTestId('box-labeler')).toHaveAttribute('data-revision', '1');
    expect(screen.getByTestId('canvas-stand-in')).toHaveAttribute('data-boxes', '1');
    expect(screen.queryByTestId('ghost-box')).toBeNull();
    expect(screen.queryByTestId('labeler-suggestion')).toBeNull();
  });
});

describe('suggestions in the detection grid', () => {
  it('marks an unannotated image with suggested boxes, never an annotated one', async () => {
    const suggestion = { id: 701, label: null, label_name: null, confidence: 0.8, boxes: [{ label: 11, x: 1, y: 2, width: 10, height: 10, score: 0.8 }, { label: 12, x: 20, y: 2, width: 10, height: 10, score: 0.8 }], round: 7 };
    const tile = (id: number, status: string, extra: Record<string, unknown> = {}) =>
      sampleFixture(id, { annotation_status: status, box_count: 0, box_labels: [], boxes: [], width: 100, height: 50, ...extra });
    fakeApi({
      'GET /api/v1/datasets/1/labels/': page(LABELS),
      'GET /api/v1/datasets/1/samples/': {
        ...page([tile(1, 'annotated', { box_count: 1, boxes: [{ label: 11, x: 1, y: 1, width: 5, height: 5 }], suggestion: { ...suggestion, id: 700 } }), tile(2, 'unlabeled', { suggestion })]),
        counts: { total: 2, labeled: 1, unlabeled: 1, annotated: 1, no_objects: 0, per_label: [] },
      },
    });
    renderWithApp(<DetectionGrid datasetId={1} canEdit />);
    const suggested = await screen.findByTestId('detection-tile-2');
    expect(suggested).toHaveAttribute('data-suggestion', '701');
    expect(within(suggested).getByTestId('detection-suggestion-2')).toHaveTextContent('≈ 2 boxes');
    expect(within(suggested).getByTestId('detection-suggestion-2')).toHaveAttribute('aria-label', 'suggested: 2 boxes 0.80');
    expect(screen.getByTestId('detection-tile-1')).not.toHaveAttribute('data-suggestion');
    expect(screen.queryByTestId('detection-suggestion-1')).toBeNull();
  });
});
