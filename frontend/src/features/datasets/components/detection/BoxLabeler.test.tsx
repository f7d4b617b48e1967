import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { Rect } from './geometry';
import { BoxLabeler } from './BoxLabeler';
import { sampleFixture } from '../sampleFixture';

// Konva draws on a 2D canvas context, which jsdom does not have: the canvas is replaced by buttons that
// report what a mouse would (a drawn rectangle, a moved box, a click on a box). The canvas itself runs
// in the browser end-to-end test.
vi.mock('./BoxCanvas', () => ({
  BoxCanvas: ({
    boxes,
    drawLabel,
    onCreate,
    onChange,
    onSelect,
  }: {
    boxes: { key: string }[];
    drawLabel: string | null;
    onCreate: (rect: Rect) => void;
    onChange: (key: string, rect: Rect) => void;
    onSelect: (key: string | null) => void;
  }) => (
    <div data-testid="canvas-stand-in" data-draw-label={drawLabel ?? ''}>
      <button onClick={() => onCreate({ x: 10, y: 12, width: 30, height: 20 })}>draw</button>
      <button onClick={() => onChange(boxes[0].key, { x: 50, y: 40, width: 30, height: 20 })}>move</button>
      <button onClick={() => onSelect(boxes[0].key)}>select</button>
    </div>
  ),
}));

const LABELS = [
  { id: 11, name: 'cat', color: '', sample_count: 0, created_at: '2026-11-29T10:00:00Z' },
  { id: 12, name: '狗', color: '', sample_count: 0, created_at: '2026-11-29T10:00:00Z' },
];

function sample(id: number) {
  return sampleFixture(id, { original_name: `scene_${id}.png`, annotation_status: 'unlabeled', box_count: 0, box_labels: [], width: 96, height: 64 });
}

type Stored = { status: string; revision: number; annotations: { kind: string; label: string; geometry: Rect }[] };

/** A server whose PUT checks the revision like the real one. */
function annotationServer(current: Stored) {
  const state = { ...current };
  const answer = (sampleId: number) => ({ sample: sampleId, width: 96, height: 64, ...state });
  const server = fakeApi({
    'GET /api/v1/datasets/1/labels/': page(LABELS),
    'GET /api/v1/datasets/1/samples/': { ...page([sample(5), sample(6), sample(7)]), counts: { total: 3, labeled: 0, unlabeled: 3, per_label: [] } },
    'GET /api/v1/datasets/1/samples/6/': sample(6),
    'GET /api/v1/datasets/1/samples/6/annotations/': () => json(answer(6)),
    'GET /api/v1/datasets/1/samples/5/annotations/': {
      sample: 5,
      width: 96,
      height: 64,
      status: 'annotated',
      revision: 3,
      annotations: [
        { id: 1, kind: 'box', label: '狗', geometry: { x: 80, y: 50, width: 30, height: 30 } },
        { id: 2, kind: 'box', label: 'cat', geometry: { x: 1, y: 2, width: 8, height: 9 } },
      ],
    },
    'PUT /api/v1/datasets/1/samples/6/annotations/': (call: RecordedCall) => {
      const body = call.body as Stored;
      if (body.revision !== state.revision) {
        return apiError(409, 'annotation_conflict', 'Sample 6 changed since revision.', { current: answer(6) });
      }
      Object.assign(state, { status: body.status, annotations: body.annotations, revision: state.revision + 1 });
      return json(answer(6));
    },
  });
  return { server, state };
}

const key = (name: string, modifiers: Record<string, boolean> = {}) => fireEvent.keyDown(document.body, { key: name, ...modifiers });

function renderLabeler(onNavigate = vi.fn()) {
  renderWithApp(<BoxLabeler datasetId={1} sampleId={6} canEdit filters={{ label: null, search: '', page: 1 }} gridLink="/datasets/1/label" onNavigate={onNavigate} />);
  return onNavigate;
}

const boxRows = () => screen.queryAllByTestId('labeler-box');

describe('BoxLabeler', () => {
  it('draws with the label picked by key, undoes and redoes, and saves with the revision read', async () => {
    const { server } = annotationServer({ status: 'unlabeled', revision: 4, annotations: [] });
    renderLabeler();
    expect(await screen.findByTestId('canvas-stand-in')).toHaveAttribute('data-draw-label', 'cat');
    expect(screen.getByTestId('labeler-position')).toHaveTextContent('2 of 3');

    key('2');
    expect(screen.getByTestId('canvas-stand-in')).toHaveAttribute('data-draw-label', '狗');
    fireEvent.click(screen.getByText('draw'));
    expect(boxRows()).toHaveLength(1);
    expect(boxRows()[0]).toHaveAttribute('data-label', '狗');
    expect(screen.getByTestId('labeler-status')).toHaveTextContent('annotated');
    expect(screen.getByTestId('labeler-save-state')).toHaveTextContent('unsaved changes');

    fireEvent.click(screen.getByText('move'));
    expect(boxRows()[0]).toHaveAttribute('data-geometry', '50,40,30,20');
    key('z', { ctrlKey: true });
    expect(boxRows()[0]).toHaveAttribute('data-geometry', '10,12,30,20');
    key('z', { ctrlKey: true });
    expect(boxRows()).toHaveLength(0);
    key('Z', { ctrlKey: true, shiftKey: true });
    key('Z', { ctrlKey: true, shiftKey: true });
    expect(boxRows()[0]).toHaveAttribute('data-geometry', '50,40,30,20');

    // A selected box takes the label of the key pressed.
    fireEvent.click(screen.getByText('select'));
    key('1');
    expect(boxRows()[0]).toHaveAttribute('data-label', 'cat');

    key('s', { ctrlKey: true });
    await waitFor(() => expect(screen.getByTestId('labeler-save-state')).toHaveTextContent('saved'));
    const [put] = server.callsTo('PUT', '/api/v1/datasets/1/samples/6/annotations/');
    expect(put.body).toEqual({
      revision: 4,
      status: 'annotated',
      annotations: [{ kind: 'box', label: 'cat', geometry: { x: 50, y: 40, width: 30, height: 20 } }],
    });
    expect(screen.getByTestId('box-labeler')).toHaveAttribute('data-revision', '5');

    // Deleting the only box leaves the image not labeled; "no objects" marks it reviewed.
    fireEvent.click(screen.getByText('select'));
    key('Delete');
    expect(boxRows()).toHaveLength(0);
    key('n');
    expect(screen.getByTestId('labeler-status')).toHaveTextContent('no objects');
    fireEvent.click(screen.getByTestId('labeler-save'));
    await waitFor(() => expect(server.callsTo('PUT', '/api/v1/datasets/1/samples/6/annotations/')).toHaveLength(2));
    expect(server.callsTo('PUT', '/api/v1/datasets/1/samples/6/annotations/')[1].body).toEqual({ revision: 5, status: 'no_objects', annotations: [] });
  });

  it('on a conflict shows it, loads the current boxes and saves on top of them next time', async () => {
    const { server, state } = annotationServer({ status: 'unlabeled', revision: 1, annotations: [] });
    renderLabeler();
    await screen.findByTestId('canvas-stand-in');
    // Someone else saves first.
    Object.assign(state, { revision: 2, status: 'annotated', annotations: [{ kind: 'box', label: 'cat', geometry: { x: 3, y: 4, width: 5, height: 6 } }] });
    fireEvent.click(screen.getByText('draw'));
    fireEvent.click(screen.getByTestId('labeler-save'));

    const conflict = await screen.findByTestId('labeler-conflict');
    expect(conflict).toHaveTextContent('revision 2, 1 box');
    expect(boxRows()).toHaveLength(1);
    expect(boxRows()[0]).toHaveAttribute('data-geometry', '3,4,5,6');
    expect(screen.getByTestId('labeler-save-state')).toHaveTextContent('saved');

    fireEvent.click(screen.getByText('draw'));
    fireEvent.click(screen.getByTestId('labeler-save'));
    await waitFor(() => expect(server.callsTo('PUT', '/api/v1/datasets/1/samples/6/annotations/')).toHaveLength(2));
    const second = server.callsTo('PUT', '/api/v1/datasets/1/samples/6/annotations/')[1].body as Stored;
    expect(second.revision).toBe(2);
    expect(second.annotations).toHaveLength(2);
  });

  it('copies the previous image’s boxes (cut to this image) and saves before moving on', async () => {
    const { server } = annotationServer({ status: 'unlabeled', revision: 0, annotations: [] });
    const onNavigate = renderLabeler();
    await screen.findByTestId('canvas-stand-in');
    await waitFor(() => expect(screen.getByTestId('labeler-copy-previous')).toBeEnabled());
    key('c');
    await waitFor(() => expect(boxRows()).toHaveLength(2));
    expect(boxRows().map((row) => row.getAttribute('data-geometry'))).toEqual(['80,50,16,14', '1,2,8,9']);
    expect(within(screen.getByTestId('labeler-boxes')).getByText(/狗/)).toBeInTheDocument();

    key('d');
    await waitFor(() => expect(onNavigate).toHaveBeenCalledWith(7, { label: null, search: '', page: 1 }));
    expect(server.callsTo('PUT', '/api/v1/datasets/1/samples/6/annotations/')).toHaveLength(1);
    key('ArrowLeft');
    await waitFor(() => expect(onNavigate).toHaveBeenLastCalledWith(5, { label: null, search: '', page: 1 }));
    expect(server.callsTo('PUT', '/api/v1/datasets/1/samples/6/annotations/')).toHaveLength(1);
  });
});
