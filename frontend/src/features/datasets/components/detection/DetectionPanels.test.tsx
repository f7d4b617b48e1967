import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { ImportPanel } from '../ImportPanel';
import { ImportBatchView } from '../ImportReport';
import { StatisticsPanel } from '../StatisticsPanel';
import { annotateSearch, filtersFromSearch } from './annotateLink';
import { DetectionGrid } from './DetectionGrid';
import { areaRows, perImageRows } from './statisticsRows';
import { sampleFixture } from '../sampleFixture';

const LABELS = [
  { id: 11, name: 'cat', color: '', sample_count: 0, created_at: '2026-11-29T10:00:00Z' },
  { id: 12, name: 'dog', color: '', sample_count: 0, created_at: '2026-11-29T10:00:00Z' },
];

function tile(id: number, status: string, extra: Record<string, unknown> = {}) {
  return sampleFixture(id, { original_name: `scene_${id}.png`, annotation_status: status, box_count: 0, box_labels: [], boxes: [], width: 100, height: 50, ...extra });
}

describe('DetectionGrid', () => {
  it('draws each image’s boxes (from the list), filters by status and label with counts, and opens the labeler on the filter', async () => {
    const server = fakeApi({
      'GET /api/v1/datasets/1/labels/': page(LABELS),
      'GET /api/v1/datasets/1/samples/': {
        ...page([
          tile(1, 'annotated', {
            box_count: 2,
            box_labels: [11, 12],
            boxes: [
              { label: 11, x: 10, y: 5, width: 50, height: 25 },
              { label: 12, x: 0, y: 0, width: 10, height: 10 },
            ],
          }),
          tile(2, 'no_objects'),
          tile(3, 'unlabeled'),
        ]),
        counts: { total: 3, labeled: 2, unlabeled: 1, annotated: 1, no_objects: 1, per_label: [{ id: 11, name: 'cat', color: '', count: 1 }, { id: 12, name: 'dog', color: '', count: 1 }] },
      },
    });
    renderWithApp(<DetectionGrid datasetId={1} canEdit />, { route: '/datasets/1/label', path: '/datasets/1/label' });
    const first = await screen.findByTestId('detection-tile-1');
    expect(first.querySelectorAll('[data-testid="drawn-box"]')).toHaveLength(2);
    // Named once the labels are in.
    await waitFor(() => expect(first.querySelector('[data-label="cat"]')).not.toBeNull());
    const cat = first.querySelector<HTMLElement>('[data-label="cat"]')!;
    expect(cat.style.left).toBe('10%');
    expect(cat.style.width).toBe('50%');
    expect(first).toHaveTextContent('2 boxes');
    expect(screen.getByTestId('detection-tile-2')).toHaveTextContent('no objects');
    expect(screen.getByTestId('detection-tile-3')).toHaveTextContent('not labeled');
    expect(screen.getByTestId('detection-progress')).toHaveTextContent('2 / 3 reviewed');

    const user = userEvent.setup();
    await user.click(screen.getByTestId('detection-filter'));
    await user.click(await screen.findByRole('option', { name: 'Not labeled (1)', hidden: true }));
    await waitFor(() => expect(server.callsTo('GET', '/api/v1/datasets/1/samples/').some((call) => call.search.get('annotation_status') === 'unlabeled')).toBe(true));
    await user.click(screen.getByTestId('detection-filter'));
    await user.click(await screen.findByRole('option', { name: 'Has "dog" (1)', hidden: true }));
    await waitFor(() => expect(server.callsTo('GET', '/api/v1/datasets/1/samples/').some((call) => call.search.get('box_label') === '12')).toBe(true));

    fireEvent.click(screen.getByTestId('detection-tile-3'));
    expect(await screen.findByTestId('elsewhere')).toBeInTheDocument();
  });

  it('carries the grid’s filter to the labeler and back', () => {
    const filters = { label: null, search: '', page: 3, status: 'no_objects' as const, boxLabel: 12 };
    const search = annotateSearch(filters);
    expect(search).toBe('?status=no_objects&box_label=12&page=3');
    expect(filtersFromSearch(new URLSearchParams(search))).toEqual(filters);
    expect(filtersFromSearch(new URLSearchParams('status=bogus&box_label=-1&page=0'))).toEqual({ label: null, search: '', page: 1 });
    expect(annotateSearch({ label: null, search: '', page: 1 })).toBe('');
    // Picked images (a report's bad cases) are stepped through by id.
    const picked = { label: null, search: '', page: 1, ids: [9, 4] };
    expect(annotateSearch(picked)).toBe('?ids=9%2C4');
    expect(filtersFromSearch(new URLSearchParams(annotateSearch(picked)))).toEqual(picked);
  });
});

describe('detection statistics', () => {
  beforeEach(() => {
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue({ width: 460, height: 400, top: 0, left: 0, right: 460, bottom: 400, x: 0, y: 0, toJSON: () => ({}) });
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(460);
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(400);
  });
  afterEach(() => vi.restoreAllMocks());

  it('names the histogram bars: box counts (the capped last one "or more") and shares of the image', () => {
    expect(perImageRows({ bins: [1, 2, 3], counts: [4, 1] }, (n) => `${n}+`)).toEqual([
      { bucket: '1', count: 4 },
      { bucket: '2', count: 1 },
    ]);
    const capped = perImageRows({ bins: Array.from({ length: 21 }, (_, i) => i + 1), counts: Array(20).fill(1) }, (n) => `${n}+`);
    expect(capped[19].bucket).toBe('20+');
    expect(areaRows({ bins: [0.0001, 0.00025, 1], counts: [2, 3] }, (from, to) => `${from}–${to}`)).toEqual([
      { bucket: '0.01%–0.025%', count: 2 },
      { bucket: '0.025%–100%', count: 3 },
    ]);
  });

  it('charts boxes per class, per image and by size for a detection dataset', async () => {
    fakeApi({
      'GET /api/v1/datasets/1/': json({ id: 1, task_type: 'object_detection' }),
      'GET /api/v1/datasets/1/statistics/': json({
        total: 5,
        labeled: 4,
        unlabeled: 1,
        per_label: [
          { id: 11, name: 'cat', color: '', count: 3 },
          { id: 12, name: 'dog', color: '', count: 1 },
        ],
        width: { min: 96, max: 96, mean: 96 },
        height: { min: 96, max: 96, mean: 96 },
        size_buckets: [{ max_side: 128, count: 5 }],
        common_sizes: [{ width: 96, height: 96, count: 5 }],
        formats: [{ format: 'PNG', count: 5 }],
        detection: {
          boxes: 6,
          boxes_per_class: [
            { label: 'cat', count: 5 },
            { label: 'dog', count: 1 },
          ],
          boxes_per_image: { bins: [1, 2, 3, 4], counts: [1, 1, 1] },
          relative_area: { bins: [0.0001, 0.01, 0.1, 1], counts: [0, 4, 2] },
          images_without_boxes: 2,
          unlabeled: 1,
          no_objects: 1,
          annotated: 3,
        },
      }),
    });
    renderWithApp(<StatisticsPanel datasetId={1} />);
    expect(await screen.findByTestId('detection-statistics')).toBeInTheDocument();
    expect(screen.getByTestId('stat-boxes')).toHaveTextContent('6');
    expect(screen.getByTestId('stat-without-boxes')).toHaveTextContent('2');
    expect(screen.getByTestId('boxes-per-class-chart')).toHaveAttribute('data-points', '2');
    expect(screen.getByTestId('boxes-per-image-chart')).toHaveAttribute('data-points', '3');
    expect(screen.getByTestId('relative-area-chart')).toHaveAttribute('data-points', '3');
    // Images per label would read as boxes: the classification chart is left out.
    expect(screen.queryByTestId('class-counts-chart')).toBeNull();
  });
});

describe('detection import', () => {
  it('sends the chosen annotation format with the archive and offers the export formats', async () => {
    fakeApi({
      'GET /api/v1/datasets/1/': json({ id: 1, task_type: 'object_detection' }),
      'GET /api/v1/datasets/1/imports/': page([]),
    });
    const sent: FormData[] = [];
    class FakeXhr {
      upload = { onprogress: null };
      onload: (() => void) | null = null;
      status = 400;
      statusText = '';
      responseText = JSON.stringify({ error: { code: 'mixed_annotation_formats', message: 'The archive mixes COCO and YOLO.', details: {} } });
      open() {}
      setRequestHeader() {}
      send(body: FormData) {
        sent.push(body);
        setTimeout(() => this.onload?.(), 0);
      }
    }
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    renderWithApp(<ImportPanel datasetId={1} />);
    const user = userEvent.setup();
    // Each select's own options (the other's stay in the page, hidden).
    const pick = async (testId: string, name: string) => {
      const input = await screen.findByTestId(testId);
      await user.click(input);
      await waitFor(() => expect(input).toHaveAttribute('aria-controls'));
      const listbox = document.getElementById(input.getAttribute('aria-controls')!)!;
      await user.click(within(listbox).getByRole('option', { name, hidden: true }));
    };
    await pick('import-format', 'YOLO txt');
    await pick('export-format', 'Pascal VOC XML');
    expect(screen.getByTestId('import-export-download')).toHaveAttribute('href', '/api/v1/datasets/1/export/?format=voc');

    fireEvent.drop(screen.getByTestId('import-dropzone'), { dataTransfer: { files: [new File(['zip'], 'scenes.zip')] } });
    expect(await screen.findByTestId('upload-error')).toHaveTextContent('The archive mixes COCO and YOLO.');
    expect(sent[0].get('format')).toBe('yolo');
  });
});

describe('annotation import problems', () => {
  it('names each problem’s file, line or annotation, and what the import did', () => {
    const batch = {
      id: 8,
      dataset: 1,
      source: 'archive',
      filename: 'scenes.zip',
      size_bytes: 1000,
      label_name: '',
      job: null,
      progress: {},
      status: 'succeeded',
      files: 3,
      imported: 2,
      duplicates: 0,
      failed: 0,
      ignored: 0,
      labels_created: ['cat'],
      problems: [
        { file: 'labels/a.txt', line: 3, code: 'malformed_file', message: 'Line 3 has 4 numbers, not 5.', action: 'skipped' },
        { file: 'annotations.json', annotation: 17, code: 'box_clipped', message: 'Box 17 reaches past the image; clipped.', action: 'clipped' },
      ],
      error_code: '',
      error: '',
      created_by: 'admin',
      created_at: '2026-11-29T10:00:00Z',
      finished_at: '2026-11-29T10:00:05Z',
    } as Parameters<typeof ImportBatchView>[0]['batch'];
    renderWithApp(<ImportBatchView batch={batch} />);
    const [malformed, clipped] = screen.getAllByTestId('import-problem');
    expect(malformed).toHaveAttribute('data-action', 'skipped');
    expect(malformed).toHaveTextContent('labels/a.txt · line 3');
    expect(malformed).toHaveTextContent('Malformed file');
    expect(clipped).toHaveTextContent('annotations.json · annotation 17');
    expect(clipped).toHaveTextContent('Box outside the image (clipped)');
    expect(clipped).toHaveTextContent('clipped');
  });
});
