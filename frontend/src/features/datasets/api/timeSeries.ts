import { api, errorFromText, unwrap } from '@/api/client';

/**
 * Forecasting datasets (task type `time_series_forecasting`): the import mapping, the schema an import
 * fixes, the profile and a series' points for a chart. The shapes mirror workers/contracts/forecasting.py.
 */

/** The frequencies a dataset may have (contracts.forecasting.FREQUENCIES), in the order the select offers them. */
export const FREQUENCIES = ['min', '5min', '15min', '30min', 'h', 'D', 'W', 'MS', 'ME', 'QS', 'QE', 'YS', 'YE'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** How missing target values on the grid are filled (contracts.forecasting.FILL_RULES); the first is the default. */
export const FILL_RULES = ['interpolate', 'forward_fill', 'zero'] as const;
export type FillRule = (typeof FILL_RULES)[number];

/** The column mapping of a forecasting import: sent as form fields, the lists as repeated fields. */
export type TimeSeriesMapping = {
  timestamp_column?: string;
  /** Absent (or empty): a wide table, each target column one series. */
  series_column?: string;
  target_columns?: string[];
  known_covariates?: string[];
  static_covariates?: string[];
  /** Absent: the frequency the import infers. */
  frequency?: string;
  fill_rule?: FillRule;
};

/** A forecasting dataset's `schema` (contracts.forecasting.TimeSeriesSchema). */
export type TimeSeriesSchema = {
  kind: 'time_series';
  timestamp_column: string;
  series_column: string | null;
  target_columns: string[];
  known_covariates: string[];
  static_covariates: string[];
  frequency: string;
  frequency_inferred: string | null;
  fill_rule: FillRule;
};

export type SeriesProfile = {
  id: string;
  item: string;
  target: string;
  start: string;
  end: string;
  length: number;
  missing: number;
  missing_share: number;
  mean: number | null;
  std: number | null;
  minimum: number | null;
  maximum: number | null;
  season_length: number;
  seasonal_strength: number | null;
  trend_strength: number | null;
  zero_share: number;
};

/** A forecasting dataset's profile (contracts.forecasting.TimeSeriesProfile). */
export type TimeSeriesProfile = {
  kind: 'time_series_profile';
  version: number;
  frequency: string;
  frequency_inferred: string | null;
  season_length: number;
  series_count: number;
  observations: number;
  missing_share: number;
  shortest: number;
  longest: number;
  series: SeriesProfile[];
};

/** A series' points for a chart (contracts.forecasting.SeriesPoints): every `step`-th point of the window asked for. */
export type SeriesPoints = {
  id: string;
  timestamps: string[];
  values: (number | null)[];
  total_points: number;
  step: number;
};

export function isTimeSeriesProfile(profile: unknown): profile is TimeSeriesProfile {
  return !!profile && typeof profile === 'object' && (profile as { kind?: unknown }).kind === 'time_series_profile';
}

export function isTimeSeriesSchema(schema: unknown): schema is TimeSeriesSchema {
  return !!schema && typeof schema === 'object' && (schema as { kind?: unknown }).kind === 'time_series';
}

/** The points a chart draws per series: enough for a wide chart, few enough to draw fast. */
export const CHART_POINTS = 800;

export type SeriesWindow = { start?: string; end?: string };

/**
 * `GET /datasets/{id}/series/?id=a&id=b&start=&end=&max_points=`: each asked series' points between
 * `start` and `end` (ISO timestamps, both included; absent: from the first or to the last), downsampled
 * by the server to at most `maxPoints`.
 */
export async function getSeriesPoints(datasetId: number, ids: string[], range: SeriesWindow = {}, maxPoints = CHART_POINTS): Promise<SeriesPoints[]> {
  const query = new URLSearchParams();
  for (const id of ids) query.append('id', id);
  if (range.start) query.set('start', range.start);
  if (range.end) query.set('end', range.end);
  query.set('max_points', String(maxPoints));
  const base = typeof window === 'undefined' ? '' : window.location.origin;
  const response = await globalThis.fetch(`${base}/api/v1/datasets/${datasetId}/series/?${query.toString()}`, {
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  const text = await response.text();
  if (!response.ok) throw errorFromText(response.status, response.statusText, text);
  return JSON.parse(text) as SeriesPoints[];
}

/** Changes a forecasting dataset's frequency (the grid its series are read on) or fill rule; later versions use them. */
export function updateTimeSeriesSettings(datasetId: number, settings: { frequency?: string; fill_rule?: FillRule }) {
  return unwrap(api.PATCH('/api/v1/datasets/{id}/', { params: { path: { id: datasetId } }, body: { schema: settings } as never }));
}
