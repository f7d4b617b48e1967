/**
 * Time-series forecasting's contracts as the API sends them (workers/contracts/forecasting.py, typed
 * by the generated client): the evaluation report and comparison, the request and answer of a
 * forecaster, and what a deployed forecaster takes, under the names the views use.
 */
import type { components } from '@/api/schema';


/** The template whose models forecast (`TaskType.TIME_SERIES_FORECASTING`). */
export const FORECASTING_TEMPLATE = 'time_series_forecasting';

export function isForecastingTemplate(template: string | null | undefined): boolean {
  return template === FORECASTING_TEMPLATE;
}

type Schemas = components['schemas'];

export type ForecastMetrics = Schemas['ForecastMetrics'];
export type SeriesScores = Schemas['SeriesScores'];
export type HorizonScores = Schemas['HorizonScores'];
export type BacktestWindow = Schemas['BacktestWindow'];
export type BaselineScores = Schemas['BaselineScores'];
export type ForecastModelName = BaselineScores['model'];
export type ForecastPlot = Schemas['ForecastPlot'];
export type ForecastReport = Schemas['ForecastReport'];
export type ForecastMetricPair = Schemas['ForecastMetricPair'];
/** The compare endpoint's answer: the two reports side by side plus the versions' ids and names. */
export type ForecastComparison = Schemas['ModelVersionForecastComparison'];
export type ForecastInstance = Schemas['ForecastInstanceRequest'];
export type ForecastInstances = Schemas['ForecastInstancesRequest'];
export type ForecastPrediction = Schemas['ForecastPrediction'];
export type ForecastContract = Schemas['ForecastContract'];

function kindOf(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? (value as { kind?: unknown }).kind : undefined;
}

/** The report as a forecast report when its `kind` says it is one, else null. */
export function asForecastReport(report: unknown): ForecastReport | null {
  return kindOf(report) === 'forecast_report' ? (report as ForecastReport) : null;
}

export function asForecastComparison(comparison: unknown): ForecastComparison | null {
  return kindOf(comparison) === 'forecast_comparison' ? (comparison as ForecastComparison) : null;
}

/**
 * A model version's or deployment's `forecast_contract`, or the one its preprocessing spec
 * (preprocess.json, kind `time_series`) implies while the API does not send one; null otherwise.
 */
export function forecastContractOf(holder: { forecast_contract?: unknown; preprocessing?: unknown } | null | undefined): ForecastContract | null {
  if (!holder) return null;
  const declared = holder.forecast_contract;
  if (declared && typeof declared === 'object' && 'horizon' in declared) return declared as ForecastContract;
  const spec = holder.preprocessing as Partial<Record<string, unknown>> | null | undefined;
  if (!spec || spec.kind !== 'time_series') return null;
  return {
    frequency: String(spec.frequency ?? ''),
    min_history: Number(spec.min_history ?? 1),
    horizon: Number(spec.horizon ?? 1),
    quantiles: Array.isArray(spec.quantiles) ? (spec.quantiles as number[]) : [],
    interval_level: Number(spec.interval_level ?? 0.8),
    known_covariates: Array.isArray(spec.known_covariates) ? (spec.known_covariates as string[]) : [],
    static_covariates: Array.isArray(spec.static_covariates) ? (spec.static_covariates as string[]) : [],
    series_ids: Array.isArray(spec.series_ids) ? (spec.series_ids as string[]) : [],
  };
}

/** A quantile level as the API keys it ("0.1", "0.9"): the number's shortest form. */
export function quantileKey(level: number): string {
  return String(level);
}
