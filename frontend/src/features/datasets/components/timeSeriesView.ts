/** What the forecasting dataset views compute: the import mapping's defaults, the series table's order, the chart's time axis. */
import type { SeriesPoints, SeriesProfile, TimeSeriesMapping } from '../api/timeSeries';

type Column = { name: string; type: string };

/**
 * The first mapping a preview suggests: the server's suggestion where it made one (`timestamp_column`,
 * `series_column`, `target_columns`, covariates), else the first date-time column as the timestamp.
 */
export function suggestedTimeSeriesMapping(columns: Column[], suggested: Record<string, unknown>, current: TimeSeriesMapping): TimeSeriesMapping {
  const names = new Set(columns.map((column) => column.name));
  const one = (value: unknown) => (typeof value === 'string' && names.has(value) ? value : '');
  const many = (value: unknown) => (Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string' && names.has(name)) : []);
  const keptMany = (value: string[] | undefined) => (value ?? []).filter((name) => names.has(name));
  const timestamp = one(current.timestamp_column) || one(suggested.timestamp_column) || columns.find((column) => column.type === 'datetime')?.name || '';
  const targets = keptMany(current.target_columns);
  return {
    timestamp_column: timestamp,
    // '' is the user's choice of a wide table; undefined: nothing chosen yet.
    series_column: current.series_column === '' ? '' : one(current.series_column) || one(suggested.series_column),
    target_columns: targets.length ? targets : many(suggested.target_columns),
    known_covariates: current.target_columns?.length ? keptMany(current.known_covariates) : many(suggested.known_covariates),
    static_covariates: current.target_columns?.length ? keptMany(current.static_covariates) : many(suggested.static_covariates),
    frequency: current.frequency ?? '',
    fill_rule: current.fill_rule ?? 'interpolate',
  };
}

/** What the import still needs before it can run (a `timeSeries.<key>` sentence), or null when the mapping is complete. */
export function timeSeriesMappingProblem(mapping: TimeSeriesMapping): 'pickTimestamp' | 'pickTarget' | null {
  if (!mapping.timestamp_column) return 'pickTimestamp';
  if (!mapping.target_columns?.length) return 'pickTarget';
  return null;
}

/** Line colours in the order series are picked (Mantine's palette, readable on white and dark). */
export const SERIES_COLORS = ['blue', 'orange', 'teal', 'grape', 'red', 'lime', 'cyan', 'pink'].map((name) => `var(--mantine-color-${name}-6)`);

/** An ISO timestamp ("2020-01-31" or "2020-01-31T06:00:00", no zone: the data's own clock) as milliseconds, read as UTC. */
export function timestampMillis(timestamp: string): number {
  const zoned = /(Z|[+-]\d\d:?\d\d)$/.test(timestamp);
  return Date.parse(timestamp.length === 10 ? `${timestamp}T00:00:00Z` : zoned ? timestamp : `${timestamp}Z`);
}

/** Every timestamp of the series, sorted and unique: the positions the zoom slider moves between. */
export function timeline(series: SeriesPoints[]): string[] {
  const all = new Set<string>();
  for (const entry of series) for (const timestamp of entry.timestamps) all.add(timestamp);
  return [...all].sort((a, b) => timestampMillis(a) - timestampMillis(b));
}

/**
 * The zoom slider's two positions on the timeline for a window of timestamps: the first point at or
 * after its start and the last at or before its end (the whole timeline without a window).
 */
export function sliderPositions(positions: string[], range: { start: string; end: string } | null): [number, number] {
  const last = Math.max(positions.length - 1, 0);
  if (!range || positions.length === 0) return [0, last];
  const start = timestampMillis(range.start);
  const end = timestampMillis(range.end);
  const from = positions.findIndex((timestamp) => timestampMillis(timestamp) >= start);
  const after = positions.findIndex((timestamp) => timestampMillis(timestamp) > end);
  const to = after === -1 ? last : Math.max(after - 1, 0);
  return from === -1 ? [last, last] : [Math.min(from, to), Math.max(from, to)];
}

/** The most series one chart draws: more lines than this are unreadable. */
export const MAX_PICKED = 5;

export type SortKey = 'id' | 'length' | 'missing_share' | 'seasonal_strength' | 'trend_strength' | 'zero_share';
export const SORT_KEYS: SortKey[] = ['id', 'length', 'missing_share', 'seasonal_strength', 'trend_strength', 'zero_share'];

/** The series in the table's order: `key` ascending or descending, missing figures last, ties by id. */
export function sortSeries(series: SeriesProfile[], key: SortKey, descending: boolean): SeriesProfile[] {
  const sign = descending ? -1 : 1;
  return [...series].sort((a, b) => {
    if (key === 'id') return sign * a.id.localeCompare(b.id, undefined, { numeric: true });
    const x = a[key];
    const y = b[key];
    if (x === null || y === null) return x === y ? a.id.localeCompare(b.id) : x === null ? 1 : -1;
    return x === y ? a.id.localeCompare(b.id, undefined, { numeric: true }) : sign * (x - y);
  });
}

