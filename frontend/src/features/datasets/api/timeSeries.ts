import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

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
export type TimeSeriesSchema = components['schemas']['TimeSeriesSchema'];
export type SeriesProfile = components['schemas']['SeriesProfile'];
/** A forecasting dataset's profile (contracts.forecasting.TimeSeriesProfile). */
export type TimeSeriesProfile = components['schemas']['TimeSeriesProfile'];
/** A series' points for a chart (contracts.forecasting.SeriesPoints): every `step`-th point of the window asked for. */
export type SeriesPoints = components['schemas']['SeriesPoints'];
/** A forecasting version's split by time: observations and series per split, the series too short for the windows. */
export type TimeSplit = components['schemas']['TimeSplit'];

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
 * `start` and `end` (ISO timestamps, both included; absent: from the first or to the last), in the
 * order asked, downsampled by the server to at most `maxPoints` (every n-th point).
 */
export function getSeriesPoints(datasetId: number, ids: string[], range: SeriesWindow = {}, maxPoints = CHART_POINTS) {
  return unwrap(
    api.GET('/api/v1/datasets/{id}/series/', {
      params: { path: { id: datasetId }, query: { id: ids, start: range.start || undefined, end: range.end || undefined, max_points: maxPoints } },
    }),
  );
}

/**
 * Changes a forecasting dataset's frequency (the grid its series are read on) or fill rule: the
 * profile is recomputed and versions created from then on use them (400 `frequency_mismatch` when
 * observations are off the new grid).
 */
export function updateTimeSeriesSettings(datasetId: number, settings: { frequency?: Frequency; fill_rule?: FillRule }) {
  // The generated type marks task_type required (it has a default); a PATCH sends only what changes.
  const body = settings as components['schemas']['PatchedDatasetRequest'];
  return unwrap(api.PATCH('/api/v1/datasets/{id}/', { params: { path: { id: datasetId } }, body }));
}
