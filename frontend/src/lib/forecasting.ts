/**
 * Time-series forecasting's contracts as the API sends them (workers/contracts/forecasting.py):
 * the evaluation report and comparison, the request and answer of a forecaster, and what a deployed
 * forecaster takes. Written out here, field for field, so the report, compare, Try it and code
 * views type-check before the generated client lists them; keep them in step with the contract.
 */

/** The template whose models forecast (`TaskType.TIME_SERIES_FORECASTING`). */
export const FORECASTING_TEMPLATE = 'time_series_forecasting';

export function isForecastingTemplate(template: string | null | undefined): boolean {
  return template === FORECASTING_TEMPLATE;
}

export type ForecastModelName = 'naive' | 'seasonal_naive' | 'ets' | 'arima' | 'theta' | 'lightgbm' | 'neural' | 'ensemble';

export type ForecastMetrics = { mase: number; smape: number; rmse: number; coverage: number | null; width: number | null };

export type SeriesScores = {
  series: string;
  mase: number;
  smape: number;
  rmse: number;
  coverage: number | null;
  width: number | null;
  seasonal_naive_mase: number;
  skill: number | null;
};

export type HorizonScores = { step: number; mase: number; smape: number; rmse: number; seasonal_naive_mase: number };

export type BacktestWindow = {
  index: number;
  role: 'validation' | 'test';
  cutoff: string;
  metrics: ForecastMetrics;
  seasonal_naive: ForecastMetrics;
};

export type BaselineScores = { model: ForecastModelName; test: ForecastMetrics; validation: ForecastMetrics | null; chosen_weight: number };

export type ForecastPlot = {
  series: string;
  timestamps: string[];
  actual: (number | null)[];
  forecast_start: number;
  mean: number[];
  lower: number[];
  upper: number[];
  seasonal_naive: number[];
};

export type ForecastReport = {
  kind: 'forecast_report';
  version: number;
  split: string;
  horizon: number;
  frequency: string;
  season_length: number;
  interval_level: number;
  model_name: string;
  series_count: number;
  observations: number;
  headline: ForecastMetrics;
  seasonal_naive: ForecastMetrics;
  skill: number | null;
  baselines: BaselineScores[];
  per_series: SeriesScores[];
  by_horizon: HorizonScores[];
  backtest: BacktestWindow[];
  plots: ForecastPlot[];
  model: { path: string; sha256: string };
};

export type ForecastMetricPair = { a: number | null; b: number | null; delta: number | null };

export type ForecastComparison = {
  kind: 'forecast_comparison';
  version: number;
  mase: ForecastMetricPair;
  smape: ForecastMetricPair;
  rmse: ForecastMetricPair;
  coverage: ForecastMetricPair;
  skill: ForecastMetricPair;
  per_series: { series: string; mase: ForecastMetricPair }[];
  by_horizon: { step: number; mase: ForecastMetricPair }[];
  /** The compare endpoint adds the two versions' ids and names, as for the other kinds. */
  a?: number;
  b?: number;
  a_name?: string;
  b_name?: string;
};

export type ForecastInstance = {
  id?: string;
  timestamps: string[];
  values: number[];
  known?: Record<string, number[]>;
  static?: Record<string, number | string>;
};

export type ForecastInstances = { instances: ForecastInstance[]; horizon?: number; quantiles?: number[] };

export type ForecastPrediction = { id: string; timestamps: string[]; mean: number[]; quantiles: Record<string, number[]> };

export type ForecastContract = {
  frequency: string;
  min_history: number;
  horizon: number;
  quantiles: number[];
  interval_level: number;
  known_covariates: string[];
  static_covariates: string[];
  series_ids: string[];
};

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
