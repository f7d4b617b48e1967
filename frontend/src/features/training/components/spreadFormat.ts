/** The validation and spread of an evaluation report: its types (until the client is regenerated) and formats. */
import { useTranslation } from 'react-i18next';
import type { components } from '@/api/schema';
import { formatNumber, formatPercent } from '../api/modelVersions';

// The contracts of workers/contracts/validation.py, as the API schema types them.
export type FoldScore = components['schemas']['FoldScore'];
export type CandidateScore = components['schemas']['CandidateScore'];
export type CrossValidation = components['schemas']['CrossValidation'];
export type MetricInterval = components['schemas']['MetricInterval'];

/** The validation and spread an evaluation report carries, when it does (older reports have neither). */
export function spreadOf(report: unknown): { crossValidation: CrossValidation | null; intervals: MetricInterval[] } {
  const found = (report ?? {}) as { cross_validation?: CrossValidation | null; intervals?: MetricInterval[] | null };
  return {
    crossValidation: found.cross_validation && Array.isArray(found.cross_validation.scores) ? found.cross_validation : null,
    intervals: Array.isArray(found.intervals) ? found.intervals : [],
  };
}

/** Metrics that are shares (shown as percentages); the rest (MAE, RMSE, R², loss) as plain numbers. */
const FRACTIONS = new Set(['accuracy', 'macro_f1', 'weighted_f1', 'f1', 'precision', 'recall', 'balanced_accuracy']);

export function isFraction(metric: string): boolean {
  return FRACTIONS.has(metric);
}

export function formatMetric(metric: string, value: number | null | undefined): string {
  return isFraction(metric) ? formatPercent(value) : formatNumber(value);
}

const METRIC_NAMES = ['accuracy', 'macro_f1', 'mae', 'rmse', 'r2'] as const;
type KnownMetric = (typeof METRIC_NAMES)[number];

function isKnownMetric(metric: string): metric is KnownMetric {
  return (METRIC_NAMES as readonly string[]).includes(metric);
}

/** A metric's name in the UI's language (the contract's name when it is not one the UI knows). */
export function useMetricName(): (metric: string) => string {
  const { t } = useTranslation('training');
  return (metric) => (isKnownMetric(metric) ? t(`intervals.metrics.${metric}`) : metric);
}
