import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { LabelingPanel } from './LabelingPanel';
import { sampleFixture } from './sampleFixture';

const LABELS = [
  { id: 11, name: 'cat', color: '#ff0000', sample_count: 1, created_at: '2026-11-29T10:00:00Z' },
  { id: 12, name: 'dog', color: '#0000ff', sample_count: 0, created_at: '2026-11-29T10:00:00Z' },
];

type SampleFixture = { id: number; label: number | null; label_name: string | null; label_version: number };

function sample({ id, label = null, label_name = null, label_version = 0 }: Partial<SampleFixture> & { id: number }) {
  return sampleFixture(id, { label, label_name, label_version, created_at: '2026-11-29T10:00:00Z' });
}

function samplePage(samples: ReturnType<typeof sample>[]) {
  const labeled = samples.filter((item) => item.label !== null).length;
  return {
    count: samples.length,
    next: null,
    previous: null,
    counts: {
      total: samples.length,
      labeled,
      unlabeled: samples.length - labeled,
      per_label: LABELS.map((label) => ({ id: label.id, name: label.name, color: label.color, count: samples.filter((item) => item.label === label.id).length })),
    },
    results: samples,
  };
}

/** A server holding samples whose PATCH checks label_version like the real one. */
function labelingServer(initial: ReturnType<typeof sample>[]) {
  const samples = new Map(initial.map((item) => [item.id, item]));
  const server = fakeApi({
    'GET /api/v1/datasets/1/labels/': page(LABELS),
    'GET /api/v1/datasets/1/samples/': () => json(samplePage([...samples.values()])),
    ...Object.fromEntries(
      initial.map((item) => [
        `PATCH /api/v1/datasets/1/samples/${item.id}/`,
        (call: RecordedCall) => {
          const body = call.body as { label: number | null; label_version: number };
          const current = samples.get(item.id)!;
          if (body.label_version !== current.label_version) {
            return apiError(409, 'label_conflict', `Sample ${item.id} was relabeled by someone else; nothing was saved.`, {
              label_version: ['stale'],
              current: { id: item.id, label: current.label, label_name: current.label_name, label_version: current.label_version },
            });
          }
          const next = {
            ...current,
            label: body.label,
            label_name: LABELS.find((label) => label.id === body.label)?.name ?? null,
            label_version: current.label_version + 1,
          };
          samples.set(item.id, next);
          return json(next);
        },
      ]),
    ),
    'POST /api/v1/datasets/1/samples/bulk-label/': (call: RecordedCall) => {
      const body = call.body as { label: number | null; items: { id: number; label_version: number }[] };
      const updated = body.items.map((entry) => {
        const current = samples.get(entry.id)!;
        const next = { ...current, label: body.label, label_name: LABELS.find((label) => label.id === body.label)?.name ?? null, label_version: current.label_version + 1 };
        samples.set(entry.id, next);
        return { id: entry.id, label: body.label, label_version: next.label_version };
      });
      return json({ updated: updated.length, samples: updated });
    },
    'GET /api/v1/datasets/1/': json({ id: 1 }),
    'GET /api/v1/datasets/1/statistics/': json({}),
  });
  return { server, samples };
}

describe('LabelingPanel', () => {
  it('labels the current sample with a digit key, sending the label_version it showed, and moves on', async () => {
    const { server } = labelingServer([sample({ id: 1, label_version: 4 }), sample({ id: 2, label_version: 7 }), sample({ id: 3 })]);
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('sample-tile-1'));
    expect(await screen.findByTestId('labeling-progress')).toHaveTextContent('0 / 3 labeled');
    await screen.findByTestId('assign-label-12');

    await user.keyboard('2');
    await waitFor(() => expect(server.callsTo('PATCH', '/api/v1/datasets/1/samples/1/')).toHaveLength(1));
    expect(server.callsTo('PATCH', '/api/v1/datasets/1/samples/1/')[0].body).toEqual({ label: 12, label_version: 4 });
    await waitFor(() => expect(screen.getByTestId('sample-tile-1')).toHaveAttribute('data-label', '12'));
    expect(screen.getByTestId('sample-tile-1')).toHaveAttribute('data-label-version', '5');
    expect(screen.getByTestId('sample-tile-2')).toHaveAttribute('data-current', 'true');
    expect(screen.getByTestId('labeling-progress')).toHaveTextContent('1 / 3 labeled');

    await user.keyboard('1');
    await waitFor(() => expect(server.callsTo('PATCH', '/api/v1/datasets/1/samples/2/')).toHaveLength(1));
    expect(server.callsTo('PATCH', '/api/v1/datasets/1/samples/2/')[0].body).toEqual({ label: 11, label_version: 7 });

    // Arrows move; the preview follows.
    await user.keyboard('{ArrowLeft}{ArrowLeft}');
    expect(screen.getByTestId('sample-tile-1')).toHaveAttribute('data-current', 'true');
    expect(screen.getByTestId('sample-preview-name')).toHaveTextContent('img_1.png');
  });

  it('undoes the last label with Ctrl+Z, sending the version its own write produced', async () => {
    const { server } = labelingServer([sample({ id: 1, label: 11, label_name: 'cat', label_version: 2 }), sample({ id: 2 })]);
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('sample-tile-1'));
    await screen.findByTestId('assign-label-12');
    await user.keyboard('2');
    await waitFor(() => expect(screen.getByTestId('sample-tile-1')).toHaveAttribute('data-label', '12'));

    await user.keyboard('{Control>}z{/Control}');
    await waitFor(() => expect(server.callsTo('PATCH', '/api/v1/datasets/1/samples/1/')).toHaveLength(2));
    expect(server.callsTo('PATCH', '/api/v1/datasets/1/samples/1/')[1].body).toEqual({ label: 11, label_version: 3 });
    await waitFor(() => expect(screen.getByTestId('sample-tile-1')).toHaveAttribute('data-label', '11'));
  });

  it('on a 409 shows the current value, refreshes the grid and does not overwrite', async () => {
    const { server, samples } = labelingServer([sample({ id: 1, label_version: 0 }), sample({ id: 2 })]);
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('sample-tile-1'));
    await screen.findByTestId('assign-label-11');
    // Someone else labels sample 1 "dog" after the grid loaded.
    samples.set(1, { ...samples.get(1)!, label: 12, label_name: 'dog', label_version: 1 });
    const listCalls = server.callsTo('GET', '/api/v1/datasets/1/samples/').length;

    await user.keyboard('1');

    const conflict = await screen.findByTestId('label-conflict');
    expect(conflict).toHaveTextContent('relabeled by someone else');
    expect(within(conflict).getByTestId('label-conflict-current-1')).toHaveTextContent('Sample 1 is now labeled "dog" (version 1)');
    const patches = server.callsTo('PATCH', '/api/v1/datasets/1/samples/1/');
    expect(patches).toHaveLength(1);
    expect(patches[0].body).toEqual({ label: 11, label_version: 0 });
    expect(samples.get(1)?.label).toBe(12);
    await waitFor(() => expect(screen.getByTestId('sample-tile-1')).toHaveAttribute('data-label', '12'));
    await waitFor(() => expect(server.callsTo('GET', '/api/v1/datasets/1/samples/').length).toBeGreaterThan(listCalls));
  });

  it('selects with ctrl and shift click and assigns one label to all of them in one bulk request', async () => {
    const { server } = labelingServer([sample({ id: 1, label_version: 1 }), sample({ id: 2, label_version: 2 }), sample({ id: 3, label_version: 3 }), sample({ id: 4 })]);
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('sample-tile-1'));
    await user.keyboard('{Shift>}');
    await user.click(screen.getByTestId('sample-tile-3'));
    await user.keyboard('{/Shift}');
    expect(screen.getByTestId('bulk-count')).toHaveTextContent('3 selected');
    await user.keyboard('{Control>}');
    await user.click(screen.getByTestId('sample-tile-2'));
    await user.keyboard('{/Control}');
    expect(screen.getByTestId('bulk-count')).toHaveTextContent('2 selected');

    await screen.findByTestId('assign-label-12');
    await user.keyboard('2');
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/datasets/1/samples/bulk-label/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/datasets/1/samples/bulk-label/')[0].body).toEqual({
      label: 12,
      items: [
        { id: 1, label_version: 1 },
        { id: 3, label_version: 3 },
      ],
    });
    await waitFor(() => expect(screen.getByTestId('sample-tile-3')).toHaveAttribute('data-label', '12'));
    expect(screen.getByTestId('sample-tile-2')).toHaveAttribute('data-label', '');
    expect(screen.getByTestId('labeling-progress')).toHaveTextContent('2 / 4 labeled');
  });

  it('on a bulk 409 shows every sample that changed, as the server holds it now', async () => {
    const stored = [sample({ id: 1 }), sample({ id: 2 }), sample({ id: 3 })];
    const server = fakeApi({
      'GET /api/v1/datasets/1/labels/': page(LABELS),
      'GET /api/v1/datasets/1/samples/': json(samplePage(stored)),
      'POST /api/v1/datasets/1/samples/bulk-label/': apiError(409, 'label_conflict', '2 of the 2 samples were relabeled by someone else since you loaded them; nothing was saved.', {
        items: ['2 of the 2 samples were relabeled'],
        conflicts: [
          { id: 1, label: 12, label_name: 'dog', label_version: 3 },
          { id: 2, label: null, label_name: null, label_version: 1 },
        ],
      }),
      'GET /api/v1/datasets/1/': json({ id: 1 }),
      'GET /api/v1/datasets/1/statistics/': json({}),
    });
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('sample-tile-1'));
    await user.keyboard('{Shift>}');
    await user.click(screen.getByTestId('sample-tile-2'));
    await user.keyboard('{/Shift}');
    await screen.findByTestId('assign-label-11');
    await user.keyboard('1');
    const conflict = await screen.findByTestId('label-conflict');
    expect(within(conflict).getByTestId('label-conflict-current-1')).toHaveTextContent('Sample 1 is now labeled "dog" (version 3)');
    expect(within(conflict).getByTestId('label-conflict-current-2')).toHaveTextContent('Sample 2 is now unlabeled (version 1)');
    expect(server.callsTo('POST', '/api/v1/datasets/1/samples/bulk-label/')).toHaveLength(1);
  });

  it('sends the label and unlabeled filters to the server', async () => {
    const { server } = labelingServer([sample({ id: 1 })]);
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    const user = userEvent.setup();
    await screen.findByTestId('sample-tile-1');
    await user.click(screen.getByTestId('labeling-filter'));
    await user.click(await screen.findByRole('option', { name: /^Unlabeled/, hidden: true }));
    await waitFor(() => expect(server.callsTo('GET', '/api/v1/datasets/1/samples/').some((call) => call.search.get('unlabeled') === 'true')).toBe(true));
    await user.click(screen.getByTestId('labeling-filter'));
    await user.click(await screen.findByRole('option', { name: /^dog/, hidden: true }));
    await waitFor(() => expect(server.callsTo('GET', '/api/v1/datasets/1/samples/').some((call) => call.search.get('label') === '12')).toBe(true));
  });

  it('shows just the picked samples when given sample ids, asking the server for them by id', async () => {
    const stored = [sample({ id: 1 }), sample({ id: 5 }), sample({ id: 9, label: 11, label_name: 'cat' })];
    const server = fakeApi({
      'GET /api/v1/datasets/1/labels/': page(LABELS),
      'GET /api/v1/datasets/1/samples/': (call: RecordedCall) => json(pickedPage(stored, call)),
    });
    renderWithApp(<LabelingPanel datasetId={1} canEdit sampleIds={[5, 9, 404]} />);
    await screen.findByTestId('sample-tile-9');
    expect(screen.getByTestId('sample-tile-5')).toBeInTheDocument();
    expect(screen.queryByTestId('sample-tile-1')).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('labeling-sample-filter')).toHaveTextContent('Showing 3 picked samples (1 no longer exist).'));
    expect(screen.getByTestId('labeling-progress')).toHaveTextContent('1 / 3 labeled');
    const calls = server.callsTo('GET', '/api/v1/datasets/1/samples/');
    expect(calls).toHaveLength(1);
    expect(calls[0].search.get('ids')).toBe('5,9,404');
    expect(server.calls.filter((call) => /\/samples\/\d+\/$/.test(call.path))).toEqual([]);
  });

  it('pages through many picked samples on the server, the first 500 of them', async () => {
    const stored = Array.from({ length: 600 }, (_, index) => sample({ id: index + 1 }));
    const picked = stored.map((item) => item.id).reverse();
    const server = fakeApi({
      'GET /api/v1/datasets/1/labels/': page(LABELS),
      'GET /api/v1/datasets/1/samples/': (call: RecordedCall) => json(pickedPage(stored, call)),
    });
    renderWithApp(<LabelingPanel datasetId={1} canEdit sampleIds={picked} />);
    await screen.findByTestId('sample-tile-101');
    expect(screen.getByTestId('labeling-sample-filter')).toHaveTextContent('Showing 500 picked samples (the first 500 of 600).');
    expect(screen.queryByTestId('sample-tile-149')).not.toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(within(screen.getByTestId('labeling-pagination')).getByRole('button', { name: '2' }));
    await screen.findByTestId('sample-tile-149');
    const calls = server.callsTo('GET', '/api/v1/datasets/1/samples/');
    expect(calls.map((call) => call.search.get('page'))).toEqual([null, '2']);
    for (const call of calls) {
      expect(call.search.get('ids')).toBe(picked.slice(0, 500).join(','));
      expect(call.search.get('page_size')).toBe('48');
    }
  });
});

/** The server's answer to a sample list request: its `ids` filter and its page. */
function pickedPage(stored: ReturnType<typeof sample>[], call: RecordedCall) {
  const ids = call.search.get('ids')?.split(',').map(Number);
  const found = stored.filter((item) => !ids || ids.includes(item.id));
  const size = Number(call.search.get('page_size') ?? 100);
  const number = Number(call.search.get('page') ?? 1);
  const results = found.slice((number - 1) * size, number * size);
  return { ...samplePage(stored), count: found.length, next: number * size < found.length ? `?page=${number + 1}` : null, results };
}

describe('LabelingPanel with texts', () => {
  it('shows the texts in the grid and preview, searches by text, and labels by key like images', async () => {
    const text = (id: number, body: string) => ({ ...sample({ id }), original_name: `row ${id}: ${body}`, format: 'TEXT', width: 0, height: 0, text: body, values: null, target: null });
    const samples = [text(1, 'Return the square root of x.'), text(2, 'Open a TCP connection.')];
    const server = fakeApi({
      'GET /api/v1/datasets/1/': json({ id: 1, workspace: 1, project: 1, name: 'Docs', description: '', task_type: 'text_classification', sample_count: 2, labeled_count: 0, label_count: 2, schema: { text_column: 'text', label_column: '' }, created_by: 'admin', created_at: '2026-11-29T10:00:00Z' }),
      'GET /api/v1/datasets/1/labels/': page(LABELS),
      'GET /api/v1/datasets/1/samples/': () => json(samplePage(samples as ReturnType<typeof sample>[])),
      'PATCH /api/v1/datasets/1/samples/1/': () => json({ ...samples[0], label: 12, label_name: 'dog', label_version: 1 }),
    });
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    const user = userEvent.setup();
    expect(await screen.findByTestId('sample-text-1')).toHaveTextContent('Return the square root of x.');
    await user.click(screen.getByTestId('sample-tile-1'));
    expect(await screen.findByTestId('sample-preview-text')).toHaveTextContent('Return the square root of x.');
    expect(screen.queryByTestId('sample-preview-image')).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByText('Text')).toBeInTheDocument());
    await screen.findByTestId('assign-label-12');
    await user.keyboard('2');
    await waitFor(() => expect(server.callsTo('PATCH', '/api/v1/datasets/1/samples/1/')).toHaveLength(1));
    expect(server.callsTo('PATCH', '/api/v1/datasets/1/samples/1/')[0].body).toEqual({ label: 12, label_version: 0 });
  });
});
