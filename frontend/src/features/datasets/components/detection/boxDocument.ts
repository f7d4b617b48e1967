/**
 * What the box labeler edits: one image's boxes and its status, with undo/redo. Pure functions and a
 * reducer, so every edit (draw, move, resize, relabel, delete, "no objects", copy the previous
 * image's boxes) is one undoable step and tested without a canvas.
 */
import type { AnnotationStatus } from '../../api/annotations';
import { clipRect, isUsableBox, roundRect, type Rect, type Size } from './geometry';

export type { AnnotationStatus };

/** A box being edited: `key` identifies it on the client (ids come from the server only after a save). */
export interface EditableBox extends Rect {
  key: string;
  /** The label's name. */
  label: string;
  attributes?: Record<string, string | number | boolean>;
}

export interface BoxDocument {
  status: AnnotationStatus;
  boxes: EditableBox[];
}

export interface History {
  past: BoxDocument[];
  present: BoxDocument;
  future: BoxDocument[];
  /** The document as last loaded or saved: `present` differs from it when there is something to save. */
  saved: BoxDocument;
}

/** Undo goes back this many steps at most. */
export const HISTORY_LIMIT = 200;

let lastKey = 0;
export function newBoxKey(): string {
  lastKey += 1;
  return `b${lastKey}`;
}

/** A status that agrees with the boxes: boxes mean annotated; no boxes keep "no objects", else unlabeled. */
function withBoxes(doc: BoxDocument, boxes: EditableBox[]): BoxDocument {
  if (boxes.length > 0) return { status: 'annotated', boxes };
  return { status: doc.status === 'no_objects' ? 'no_objects' : 'unlabeled', boxes };
}

export function addBox(doc: BoxDocument, rect: Rect, label: string, image: Size): BoxDocument {
  const clipped = roundRect(clipRect(rect, image));
  if (!isUsableBox(clipped)) return doc;
  return withBoxes(doc, [...doc.boxes, { key: newBoxKey(), label, ...clipped }]);
}

export function moveBox(doc: BoxDocument, key: string, rect: Rect, image: Size): BoxDocument {
  const clipped = roundRect(clipRect(rect, image));
  if (!isUsableBox(clipped)) return doc;
  return withBoxes(
    doc,
    doc.boxes.map((box) => (box.key === key ? { ...box, ...clipped } : box)),
  );
}

export function relabelBox(doc: BoxDocument, key: string, label: string): BoxDocument {
  if (!doc.boxes.some((box) => box.key === key && box.label !== label)) return doc;
  return withBoxes(
    doc,
    doc.boxes.map((box) => (box.key === key ? { ...box, label } : box)),
  );
}

export function deleteBox(doc: BoxDocument, key: string): BoxDocument {
  if (!doc.boxes.some((box) => box.key === key)) return doc;
  return withBoxes(
    doc,
    doc.boxes.filter((box) => box.key !== key),
  );
}

/** "Reviewed: nothing to annotate" (only without boxes), or back to not labeled. */
export function toggleNoObjects(doc: BoxDocument): BoxDocument {
  if (doc.boxes.length > 0) return doc;
  return { status: doc.status === 'no_objects' ? 'unlabeled' : 'no_objects', boxes: [] };
}

/**
 * Adds the previous image's boxes (cut to this image; a box left outside it is dropped), skipping any
 * the image already has at the same place with the same label, so copying twice adds nothing.
 */
export function copyBoxes(doc: BoxDocument, from: readonly Omit<EditableBox, 'key'>[], image: Size): BoxDocument {
  const same = (a: Omit<EditableBox, 'key'>, b: Omit<EditableBox, 'key'>) =>
    a.label === b.label && Math.abs(a.x - b.x) < 0.5 && Math.abs(a.y - b.y) < 0.5 && Math.abs(a.width - b.width) < 0.5 && Math.abs(a.height - b.height) < 0.5;
  const added: EditableBox[] = [];
  for (const box of from) {
    const clipped = roundRect(clipRect(box, image));
    const copy = { ...box, ...clipped };
    if (!isUsableBox(clipped) || doc.boxes.some((existing) => same(existing, copy))) continue;
    added.push({ ...copy, key: newBoxKey() });
  }
  return added.length ? withBoxes(doc, [...doc.boxes, ...added]) : doc;
}

export function sameDocument(a: BoxDocument, b: BoxDocument): boolean {
  if (a.status !== b.status || a.boxes.length !== b.boxes.length) return false;
  return a.boxes.every((box, index) => {
    const other = b.boxes[index];
    return box.label === other.label && box.x === other.x && box.y === other.y && box.width === other.width && box.height === other.height;
  });
}

export function isDirty(history: History): boolean {
  return !sameDocument(history.present, history.saved);
}

export type HistoryAction =
  /** A document from the server: the history starts again. */
  | { type: 'load'; doc: BoxDocument }
  /** The document just saved (keys kept): undo stays available. */
  | { type: 'saved'; doc: BoxDocument }
  | { type: 'edit'; edit: (doc: BoxDocument) => BoxDocument }
  | { type: 'undo' }
  | { type: 'redo' };

export function initialHistory(doc: BoxDocument): History {
  return { past: [], present: doc, future: [], saved: doc };
}

export function historyReducer(history: History, action: HistoryAction): History {
  switch (action.type) {
    case 'load':
      return initialHistory(action.doc);
    case 'saved':
      return { ...history, saved: action.doc };
    case 'edit': {
      const next = action.edit(history.present);
      if (next === history.present || sameDocument(next, history.present)) return history;
      return { ...history, past: [...history.past, history.present].slice(-HISTORY_LIMIT), present: next, future: [] };
    }
    case 'undo': {
      if (history.past.length === 0) return history;
      return { ...history, past: history.past.slice(0, -1), present: history.past[history.past.length - 1], future: [history.present, ...history.future] };
    }
    case 'redo': {
      if (history.future.length === 0) return history;
      return { ...history, past: [...history.past, history.present], present: history.future[0], future: history.future.slice(1) };
    }
  }
}

/** A sample's annotations as the labeler edits them (boxes only: other kinds are not drawn here). */
export function documentFrom(current: {
  status: AnnotationStatus;
  annotations: readonly { kind: string; label: string; geometry: Rect; attributes?: EditableBox['attributes'] }[];
}): BoxDocument {
  const boxes = current.annotations
    .filter((annotation) => annotation.kind === 'box')
    .map((annotation) => ({
      key: newBoxKey(),
      label: annotation.label,
      x: annotation.geometry.x,
      y: annotation.geometry.y,
      width: annotation.geometry.width,
      height: annotation.geometry.height,
      ...(annotation.attributes ? { attributes: annotation.attributes } : {}),
    }));
  return { status: current.status, boxes };
}

/** The PUT body for a document read at `revision`. */
export function writeOf(doc: BoxDocument, revision: number) {
  return {
    revision,
    status: doc.status,
    annotations: doc.boxes.map((box) => ({
      kind: 'box' as const,
      label: box.label,
      geometry: { x: box.x, y: box.y, width: box.width, height: box.height },
      ...(box.attributes ? { attributes: box.attributes } : {}),
    })),
  };
}
