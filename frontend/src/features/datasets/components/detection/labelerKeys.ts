/**
 * The box labeler's keys. Labels take their key from the labels' order (1-9, 0, then the key the user
 * chose) as in the classification grid, except the letters the labeler keeps for itself.
 */

/** Letters the labeler uses: A/D previous/next, C copy the previous image's boxes, N no objects, F fit. */
export const LABELER_KEYS = new Set(['a', 'd', 'c', 'n', 'f']);

export type LabelerCommand =
  | { type: 'label'; label: string }
  | { type: 'delete' }
  | { type: 'undo' }
  | { type: 'redo' }
  | { type: 'next' }
  | { type: 'previous' }
  | { type: 'save' }
  | { type: 'noObjects' }
  | { type: 'copyPrevious' }
  | { type: 'deselect' }
  | { type: 'fit' };

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

/**
 * The labeler's keys for the labels (label name → key), from each label's key in the user's order
 * (`labelKeys`), without the labeler's own letters.
 */
export function labelerLabelKeys(labels: readonly { name: string; key: string | null }[]): Map<string, string> {
  const keys = new Map<string, string>();
  for (const label of labels) if (label.key && !LABELER_KEYS.has(label.key)) keys.set(label.key, label.name);
  return keys;
}

/** What a key press does (null: nothing; the page leaves the key alone). `labelByKey`: key → label name. */
export function labelerCommand(press: KeyPress, labelByKey: ReadonlyMap<string, string>): LabelerCommand | null {
  const command = press.ctrlKey || press.metaKey;
  const key = press.key.length === 1 ? press.key.toLowerCase() : press.key;
  if (command) {
    if (key === 'z') return { type: press.shiftKey ? 'redo' : 'undo' };
    if (key === 'y') return { type: 'redo' };
    if (key === 's') return { type: 'save' };
    return null;
  }
  if (press.altKey) return null;
  switch (key) {
    case 'Delete':
    case 'Backspace':
      return { type: 'delete' };
    case 'Escape':
      return { type: 'deselect' };
    case 'ArrowRight':
    case 'd':
      return { type: 'next' };
    case 'ArrowLeft':
    case 'a':
      return { type: 'previous' };
    case 'c':
      return { type: 'copyPrevious' };
    case 'n':
      return { type: 'noObjects' };
    case 'f':
      return { type: 'fit' };
  }
  const label = labelByKey.get(key);
  return label === undefined ? null : { type: 'label', label };
}
