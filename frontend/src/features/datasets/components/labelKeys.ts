import type { Label } from '../api/labels';

/** Printable keys the labeling grid keeps for itself ("/" focuses the search); never a label's key. */
export const RESERVED_KEYS = new Set(['/']);

/** The keys labels get by default, in label order: 1-9, then 0, then the letters (as the server's datasets.label_order). */
export const DEFAULT_KEYS = [...'1234567890abcdefghijklmnopqrstuvwxyz'].filter((key) => !RESERVED_KEYS.has(key));

/**
 * Distinct colours, none repeated before the 21st label (the server's datasets.services.labels.PALETTE):
 * a label without a colour takes the one of its place.
 */
export const PALETTE = [
  '#e6194b',
  '#3cb44b',
  '#4363d8',
  '#f58231',
  '#911eb4',
  '#42d4f4',
  '#f032e6',
  '#bfef45',
  '#fabed4',
  '#469990',
  '#dcbeff',
  '#9a6324',
  '#800000',
  '#aaffc3',
  '#808000',
  '#000075',
  '#ffe119',
  '#ffd8b1',
  '#a9a9a9',
  '#fffac8',
];

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
  return label.color || PALETTE[index % PALETTE.length];
}

/** A key as the keycap shows it. */
export function keyCap(key: string): string {
  return key.toUpperCase();
}
