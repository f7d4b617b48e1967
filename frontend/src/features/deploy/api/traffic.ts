import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';
import { formatNumber } from '@/lib/numbers';
import type { Deployment } from './deployments';
import type { UsageWindow } from './keys';
import { formatBucket, windowBuckets, type Usage } from './usage';

export type TrafficEntry = components['schemas']['TrafficEntry'];
export type TrafficRole = TrafficEntry['role'];
export type ShadowAgreement = components['schemas']['ShadowAgreement'];
export type ShadowAgreementPoint = ShadowAgreement['points'][number];
export type VersionUsage = NonNullable<Usage['by_version']>[number];
export type HistogramBucket = { low: number; high: number; count: number };
export type CanaryDraft = { model_version: number; weight: number };

/** The largest share all canaries together may take: the primary always answers at least 1 %. */
export const MAX_CANARY_TOTAL = 99;

export function setTraffic({ id, canaries, sticky }: { id: number; canaries: CanaryDraft[]; sticky?: boolean }) {
  return unwrap(
    api.POST('/api/v1/deployments/{id}/traffic/', {
      params: { path: { id } },
      body: sticky === undefined ? { canaries } : { canaries, sticky },
    }),
  );
}

export function promoteCanary({ id, modelVersion }: { id: number; modelVersion: number }) {
  return unwrap(api.POST('/api/v1/deployments/{id}/promote/', { params: { path: { id } }, body: { model_version: modelVersion } }));
}

export function setShadow({ id, modelVersion }: { id: number; modelVersion: number | null }) {
  return unwrap(api.POST('/api/v1/deployments/{id}/shadow/', { params: { path: { id } }, body: { model_version: modelVersion } }));
}

export function getShadowAgreement(id: number, window: UsageWindow) {
  return unwrap(api.GET('/api/v1/deployments/{id}/shadow-agreement/', { params: { path: { id }, query: { window } } }));
}

/**
 * The split as the server sends it (primary first), or, from a deployment that predates traffic
 * splits, its primary alone at 100 %.
 */
export function trafficOf(deployment: Pick<Deployment, 'model_version' | 'model_version_name'> & { traffic?: TrafficEntry[] | null }): TrafficEntry[] {
  if (deployment.traffic && deployment.traffic.length > 0) return deployment.traffic;
  return [{ model_version: deployment.model_version, model_version_name: deployment.model_version_name ?? `#${deployment.model_version}`, role: 'primary', weight: 100 }];
}

/** Canary drafts for the editor, from the current split. */
export function canaryDrafts(traffic: TrafficEntry[]): CanaryDraft[] {
  return traffic.filter((entry) => entry.role === 'canary').map((entry) => ({ model_version: entry.model_version, weight: entry.weight }));
}

export function canaryTotal(canaries: CanaryDraft[]): number {
  return canaries.reduce((sum, canary) => sum + (Number.isFinite(canary.weight) ? canary.weight : 0), 0);
}

/** Why the drafted split cannot be sent (a key of the deploy catalog's `traffic.invalid.*`), or null. */
export function canaryProblem(canaries: CanaryDraft[]): 'weight' | 'total' | 'duplicate' | null {
  if (canaries.some((canary) => !Number.isInteger(canary.weight) || canary.weight < 1 || canary.weight > 99)) return 'weight';
  if (canaryTotal(canaries) > MAX_CANARY_TOTAL) return 'total';
  if (new Set(canaries.map((canary) => canary.model_version)).size !== canaries.length) return 'duplicate';
  return null;
}

/** Whether the drafts differ from what the deployment serves now (order does not matter). */
export function canariesChanged(traffic: TrafficEntry[], canaries: CanaryDraft[]): boolean {
  const key = (list: CanaryDraft[]) =>
    [...list]
      .sort((a, b) => a.model_version - b.model_version)
      .map((canary) => `${canary.model_version}:${canary.weight}`)
      .join(',');
  return key(canaryDrafts(traffic)) !== key(canaries);
}

/** Chart rows of a histogram: one per bucket, labelled by its range. */
export function histogramRows(buckets: HistogramBucket[]): { range: string; count: number }[] {
  const digits = (value: number) => (Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2);
  const format = (value: number) => formatNumber(value, { maximumFractionDigits: digits(value), minimumFractionDigits: 0 });
  return buckets.map((bucket) => ({ range: `${format(bucket.low)}–${format(bucket.high)}`, count: bucket.count }));
}

/**
 * Per-version series merged into chart rows: one row per bucket of the whole window (the server
 * lists only buckets with calls; the others are 0, so each version draws a line), a column per
 * version (`v<id>`) with its calls (or errors) in that bucket.
 */
export function versionSeriesRows(
  versions: Pick<VersionUsage, 'model_version' | 'series'>[],
  field: 'calls' | 'errors',
  window: UsageWindow,
  bucketSeconds: number,
  now: Date = new Date(),
): Record<string, string | number>[] {
  const bucketMs = bucketSeconds * 1000;
  const startOf = (iso: string) => Math.floor(new Date(iso).getTime() / bucketMs) * bucketMs;
  const byVersion = versions.map((version) => ({
    key: `v${version.model_version}`,
    points: new Map(version.series.map((point) => [startOf(point.start), point[field]])),
  }));
  const starts = byVersion.flatMap((version) => [...version.points.keys()]);
  return windowBuckets(window, bucketMs, starts, now).map((t) => {
    const row: Record<string, string | number> = { t: formatBucket(new Date(t).toISOString(), window) };
    for (const version of byVersion) row[version.key] = version.points.get(t) ?? 0;
    return row;
  });
}

/**
 * Agreement chart rows over the whole window: agreement in percent and the mean delta per bucket,
 * null where nothing was compared (a gap, not a zero).
 */
export function agreementRows(points: ShadowAgreementPoint[], window: UsageWindow, bucketSeconds: number, now: Date = new Date()) {
  const bucketMs = bucketSeconds * 1000;
  const byStart = new Map(points.map((point) => [Math.floor(new Date(point.start).getTime() / bucketMs) * bucketMs, point]));
  return windowBuckets(window, bucketMs, [...byStart.keys()], now).map((t) => {
    const point = byStart.get(t);
    return {
      t: formatBucket(new Date(t).toISOString(), window),
      agreement: typeof point?.agreement === 'number' ? Math.round(point.agreement * 1000) / 10 : null,
      delta: typeof point?.mean_delta === 'number' ? Math.round(point.mean_delta * 1000) / 1000 : null,
    };
  });
}

/** Mantine colours for the versions of a split, stable by position (primary first). */
export const VERSION_COLORS = ['blue.6', 'orange.6', 'grape.6', 'teal.6', 'pink.6', 'cyan.6', 'lime.6', 'red.6'];
