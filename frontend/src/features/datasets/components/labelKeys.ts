import { PALETTE, paletteColor } from '@/components/boxColors';
import type { Label } from '../api/labels';

/** Printable keys the labeling grid keeps for itself ("/" focuses the search); never a label's key. */
export const RESERVED_KEYS = new Set(['/']);

/** The keys labels get by default, in label order: 1-9, then 0, then the letters (as the server's datasets.label_order). */
export const DEFAULT_KEYS = [...'1234567890abcdefghijklmnopqrstuvwxyz'].filter((key) => !RESERVED_KEYS.has(key));

/** The label colours (shared with every picture with boxes). */
export { PALETTE };

type Keyed = Pick<Label, 'id'> & { shortcut?: string };

/**
 * Each label's key, from the labels in order: its own shortcut, else the next default key that no label
 * chose, else none (more labels than keys). Computed here, not read from the server's `key`, so a drag
 * shows the new keys at once.
 */
export function labelKeys(labels: Keyed[]): Map<number, string | null> {
  const chosen = new Set(labels.map((label) => label.shortcut).filter(Boolean));
  const free = DEFAULT_KEYS.filter((key) => !chosen.has(key));
  let next = 0;
  return new Map(labels.map((label) => [label.id, label.shortcut ? label.shortcut : (free[next++] ?? null)]));
}

export function labelColor(label: Pick<Label, 'color'>, index: number): string {
  return label.color || paletteColor(index);
}

/** A key as the keycap shows it. */
export function keyCap(key: string): string {
  return key.toUpperCase();
}
