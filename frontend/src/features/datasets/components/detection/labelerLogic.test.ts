import { describe, expect, it } from 'vitest';
import {
  addBox,
  copyBoxes,
  deleteBox,
  historyReducer,
  initialHistory,
  isDirty,
  moveBox,
  relabelBox,
  toggleNoObjects,
  type BoxDocument,
  type History,
} from './boxDocument';
import { clipRect, fitView, keepInside, rectFromCorners, rectFromTransform, toImage, toStage, wheelFactor, zoomAt } from './geometry';
import { labelerCommand, labelerLabelKeys } from './labelerKeys';

const IMAGE = { width: 100, height: 50 };
const empty: BoxDocument = { status: 'unlabeled', boxes: [] };
const press = (key: string, modifiers: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }> = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...modifiers,
});

describe('geometry', () => {
  it('spans a rectangle dragged in any direction, cut to the image', () => {
    expect(rectFromCorners({ x: 30, y: 40 }, { x: 10, y: 5 }, IMAGE)).toEqual({ x: 10, y: 5, width: 20, height: 35 });
    expect(rectFromCorners({ x: -10, y: 20 }, { x: 130, y: 80 }, IMAGE)).toEqual({ x: 0, y: 20, width: 100, height: 30 });
  });

  it('clips a box to the image and keeps a moved box inside with its size', () => {
    expect(clipRect({ x: 90, y: -5, width: 20, height: 10 }, IMAGE)).toEqual({ x: 90, y: 0, width: 10, height: 5 });
    expect(clipRect({ x: 200, y: 0, width: 20, height: 10 }, IMAGE).width).toBe(0);
    expect(keepInside({ x: 95, y: 45, width: 20, height: 10 }, IMAGE)).toEqual({ x: 80, y: 40, width: 20, height: 10 });
    expect(keepInside({ x: -3, y: 2, width: 300, height: 10 }, IMAGE)).toEqual({ x: 0, y: 2, width: 100, height: 10 });
  });

  it('reads a resized node (scaled, flipped past its other side) as a box in the image', () => {
    expect(rectFromTransform({ x: 10, y: 10, width: 20, height: 10, scaleX: 1.5, scaleY: 2 }, IMAGE)).toEqual({ x: 10, y: 10, width: 30, height: 20 });
    expect(rectFromTransform({ x: 40, y: 10, width: 20, height: 10, scaleX: -1, scaleY: 1 }, IMAGE)).toEqual({ x: 20, y: 10, width: 20, height: 10 });
    expect(rectFromTransform({ x: 90, y: 40, width: 20, height: 20, scaleX: 1, scaleY: 1 }, IMAGE)).toEqual({ x: 90, y: 40, width: 10, height: 10 });
  });

  it('fits the image in the viewport, centred, and maps points both ways', () => {
    const view = fitView(IMAGE, { width: 400, height: 400 });
    expect(view).toEqual({ scale: 4, offsetX: 0, offsetY: 100 });
    expect(toStage(view, { x: 50, y: 25 })).toEqual({ x: 200, y: 200 });
    expect(toImage(view, { x: 200, y: 200 })).toEqual({ x: 50, y: 25 });
  });

  it('zooms around the pointer: the image point under it stays there', () => {
    const view = fitView(IMAGE, { width: 400, height: 400 });
    const at = { x: 120, y: 180 };
    const before = toImage(view, at);
    const zoomed = zoomAt(view, at, wheelFactor(-100));
    expect(zoomed.scale).toBeCloseTo(4.8, 6);
    const after = toImage(zoomed, at);
    expect(after.x).toBeCloseTo(before.x, 6);
    expect(after.y).toBeCloseTo(before.y, 6);
    expect(zoomAt(view, at, 1e6).scale).toBe(40);
    expect(wheelFactor(100)).toBeCloseTo(1 / 1.2, 6);
  });
});

describe('box document', () => {
  it('keeps the status in step with the boxes', () => {
    const one = addBox(empty, { x: 10, y: 10, width: 20, height: 10 }, 'cat', IMAGE);
    expect(one.status).toBe('annotated');
    expect(one.boxes).toMatchObject([{ label: 'cat', x: 10, y: 10, width: 20, height: 10 }]);
    const none = deleteBox(one, one.boxes[0].key);
    expect(none).toEqual({ status: 'unlabeled', boxes: [] });
    const reviewed = toggleNoObjects(none);
    expect(reviewed.status).toBe('no_objects');
    expect(toggleNoObjects(one)).toBe(one);
    expect(addBox(reviewed, { x: 0, y: 0, width: 5, height: 5 }, 'dog', IMAGE).status).toBe('annotated');
  });

  it('refuses a box too small to be one (a click) and clips a box to the image', () => {
    expect(addBox(empty, { x: 10, y: 10, width: 1, height: 30 }, 'cat', IMAGE)).toBe(empty);
    const clipped = addBox(empty, { x: 90.123, y: 40, width: 30, height: 30 }, 'cat', IMAGE);
    expect(clipped.boxes[0]).toMatchObject({ x: 90.12, y: 40, width: 9.88, height: 10 });
    const moved = moveBox(clipped, clipped.boxes[0].key, { x: 0, y: 0, width: 9.88, height: 10 }, IMAGE);
    expect(moved.boxes[0]).toMatchObject({ x: 0, y: 0 });
    expect(relabelBox(moved, moved.boxes[0].key, 'dog').boxes[0].label).toBe('dog');
  });

  it('copies the previous image’s boxes once, cut to this image', () => {
    const previous = [
      { label: 'cat', x: 10, y: 10, width: 20, height: 10 },
      { label: 'dog', x: 90, y: 40, width: 40, height: 40 },
      { label: 'bird', x: 150, y: 10, width: 10, height: 10 },
    ];
    const copied = copyBoxes(empty, previous, IMAGE);
    expect(copied.boxes.map((box) => [box.label, box.width, box.height])).toEqual([
      ['cat', 20, 10],
      ['dog', 10, 10],
    ]);
    expect(copyBoxes(copied, previous, IMAGE)).toBe(copied);
  });

  it('undoes and redoes every edit as one step, and knows what is unsaved', () => {
    let history: History = initialHistory(empty);
    const edit = (fn: (doc: BoxDocument) => BoxDocument) => (history = historyReducer(history, { type: 'edit', edit: fn }));
    edit((doc) => addBox(doc, { x: 1, y: 1, width: 10, height: 10 }, 'cat', IMAGE));
    const key = history.present.boxes[0].key;
    edit((doc) => moveBox(doc, key, { x: 20, y: 1, width: 10, height: 10 }, IMAGE));
    edit((doc) => relabelBox(doc, key, 'dog'));
    expect(isDirty(history)).toBe(true);
    const unchanged = history;
    edit((doc) => relabelBox(doc, key, 'dog'));
    expect(history).toBe(unchanged);

    history = historyReducer(history, { type: 'undo' });
    expect(history.present.boxes[0]).toMatchObject({ label: 'cat', x: 20 });
    history = historyReducer(history, { type: 'undo' });
    expect(history.present.boxes[0]).toMatchObject({ label: 'cat', x: 1 });
    history = historyReducer(history, { type: 'redo' });
    expect(history.present.boxes[0]).toMatchObject({ x: 20 });
    history = historyReducer(history, { type: 'undo' });
    history = historyReducer(history, { type: 'undo' });
    expect(history.present).toEqual(empty);
    expect(isDirty(history)).toBe(false);
    expect(historyReducer(history, { type: 'undo' })).toBe(history);

    history = historyReducer(history, { type: 'redo' });
    edit((doc) => deleteBox(doc, key));
    expect(history.future).toEqual([]);
    history = historyReducer(history, { type: 'saved', doc: history.present });
    expect(isDirty(history)).toBe(false);
    expect(history.past.length).toBe(2);
    history = historyReducer(history, { type: 'load', doc: empty });
    expect(history.past).toEqual([]);
  });
});

describe('labeler keys', () => {
  const labels = labelerLabelKeys([
    { name: '零', key: '1' },
    { name: 'cat', key: '2' },
    { name: 'eleventh', key: 'a' },
    { name: 'chosen', key: 'x' },
  ]);

  it('gives labels their keys in the user order, except the labeler’s own letters', () => {
    expect([...labels]).toEqual([
      ['1', '零'],
      ['2', 'cat'],
      ['x', 'chosen'],
    ]);
    expect(labelerCommand(press('1'), labels)).toEqual({ type: 'label', label: '零' });
    expect(labelerCommand(press('X'), labels)).toEqual({ type: 'label', label: 'chosen' });
    expect(labelerCommand(press('3'), labels)).toBeNull();
  });

  it('maps navigation, editing and history keys', () => {
    expect(labelerCommand(press('d'), labels)).toEqual({ type: 'next' });
    expect(labelerCommand(press('ArrowRight'), labels)).toEqual({ type: 'next' });
    expect(labelerCommand(press('A'), labels)).toEqual({ type: 'previous' });
    expect(labelerCommand(press('ArrowLeft'), labels)).toEqual({ type: 'previous' });
    expect(labelerCommand(press('Delete'), labels)).toEqual({ type: 'delete' });
    expect(labelerCommand(press('Backspace'), labels)).toEqual({ type: 'delete' });
    expect(labelerCommand(press('z', { ctrlKey: true }), labels)).toEqual({ type: 'undo' });
    expect(labelerCommand(press('Z', { ctrlKey: true, shiftKey: true }), labels)).toEqual({ type: 'redo' });
    expect(labelerCommand(press('z', { metaKey: true, shiftKey: true }), labels)).toEqual({ type: 'redo' });
    expect(labelerCommand(press('y', { ctrlKey: true }), labels)).toEqual({ type: 'redo' });
    expect(labelerCommand(press('s', { ctrlKey: true }), labels)).toEqual({ type: 'save' });
    expect(labelerCommand(press('n'), labels)).toEqual({ type: 'noObjects' });
    expect(labelerCommand(press('c'), labels)).toEqual({ type: 'copyPrevious' });
    expect(labelerCommand(press('Escape'), labels)).toEqual({ type: 'deselect' });
    expect(labelerCommand(press('c', { ctrlKey: true }), labels)).toBeNull();
    expect(labelerCommand(press('1', { altKey: true }), labels)).toBeNull();
  });
});
