import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';
import { currentLanguage } from '@/i18n';
import { formatNumber, formatPercent } from '@/lib/numbers';
import type { UsageWindow } from './keys';

export type Usage = components['schemas']['DeploymentUsage'];
export type UsagePoint = Usage['series'][number];

/** The windows the usage panel offers (their names are the deploy catalog's `usage.windows.*`). */
export const USAGE_WINDOWS: UsageWindow[] = ['1h', '24h', '7d'];

export function getUsage(deploymentId: number, window: UsageWindow) {
  return unwrap(api.GET('/api/v1/deployments/{id}/usage/', { params: { path: { id: deploymentId }, query: { window } } }));
}

/** Axis label of a series point: clock time for short windows, day and hour for a week. */
export function formatBucket(iso: string, window: UsageWindow): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  if (window === '7d') return date.toLocaleString(currentLanguage(), { month: 'short', day: 'numeric', hour: '2-digit' });
  return date.toLocaleTimeString(currentLanguage(), { hour: '2-digit', minute: '2-digit' });
}

const WINDOW_SECONDS: Record<UsageWindow, number> = { '1h': 3600, '24h': 24 * 3600, '7d': 7 * 24 * 3600 };

/**
 * Chart rows, one per bucket of the whole window: the server lists only buckets with calls, so the
 * empty ones are filled in (0 calls, no latency) and the time axis stays even.
 */
export function usageRows(usage: Pick<Usage, 'series'> & { bucket_seconds?: number }, window: UsageWindow, now: Date = new Date()) {
  const row = (t: number, point?: UsagePoint) => ({
    t: formatBucket(new Date(t).toISOString(), window),
    calls: point?.calls ?? 0,
    errors: point?.errors ?? 0,
    p50: point?.p50_ms ?? null,
    p95: point?.p95_ms ?? null,
    p99: point?.p99_ms ?? null,
  });
  const bucketMs = (usage.bucket_seconds ?? 0) * 1000;
  if (!bucketMs) return usage.series.map((point) => row(new Date(point.t).getTime(), point));
  const byStart = new Map(usage.series.map((point) => [Math.floor(new Date(point.t).getTime() / bucketMs) * bucketMs, point]));
  return windowBuckets(window, bucketMs, [...byStart.keys()], now).map((t) => row(t, byStart.get(t)));
}

/** The start (ms) of every bucket of the window ending now, widened to any bucket given in `starts`. */
export function windowBuckets(window: UsageWindow, bucketMs: number, starts: number[], now: Date = new Date()): number[] {
  const last = Math.floor(now.getTime() / bucketMs) * bucketMs;
  const first = last - Math.floor((WINDOW_SECONDS[window] * 1000) / bucketMs - 1) * bucketMs;
  const buckets = [];
  for (let t = Math.min(first, ...starts); t <= Math.max(last, ...starts); t += bucketMs) buckets.push(t);
  return buckets;
}

export function formatMs(value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  const digits = value < 10 ? 2 : 0;
  return `${formatNumber(value, { minimumFractionDigits: digits, maximumFractionDigits: digits })} ms`;
}

export function errorRate(totals: Pick<Usage['totals'], 'calls' | 'errors'>): string {
  if (!totals.calls) return '—';
  return formatPercent(totals.errors / totals.calls, 1);
}
