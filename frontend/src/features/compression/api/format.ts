import { formatNumber, formatPercent } from '@/lib/numbers';
import type { VariantSummary } from './types';

/** Metrics reported as fractions (shown as percentages, their drops in points). */
const FRACTION_METRICS = new Set(['accuracy', 'top1', 'top1_accuracy', 'balanced_accuracy', 'f1', 'macro_f1', 'map', 'map50', 'map_50', 'r2', 'auc', 'roc_auc']);

export function isFraction(metric: string): boolean {
  return FRACTION_METRICS.has(metric.toLowerCase());
}

export function formatMetric(metric: string, value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  return isFraction(metric) ? formatPercent(value, 1) : formatNumber(value, { maximumSignificantDigits: 4 });
}

/** A change against the parent: "+0.4 pts" for fractions, "−0.012" otherwise. */
export function formatDelta(metric: string, delta: number | null | undefined): string {
  if (typeof delta !== 'number' || !Number.isFinite(delta)) return '—';
  const sign = delta > 0 ? '+' : delta < 0 ? '−' : '±';
  const size = Math.abs(delta);
  return isFraction(metric) ? `${sign}${formatNumber(size * 100, { maximumFractionDigits: 2 })} pts` : `${sign}${formatNumber(size, { maximumSignificantDigits: 3 })}`;
}

export function formatMs(ms: number | null | undefined): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '—';
  return `${formatNumber(ms, { maximumFractionDigits: ms < 10 ? 2 : 1 })} ms`;
}

/** How many times smaller than the parent ("4.0×"). */
export function timesSmaller(parent: Pick<VariantSummary, 'size_bytes'>, variant: Pick<VariantSummary, 'size_bytes'>): number | null {
  return variant.size_bytes > 0 ? parent.size_bytes / variant.size_bytes : null;
}

export function formatCount(value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  return formatNumber(value, { notation: 'compact', maximumFractionDigits: 1 });
}
