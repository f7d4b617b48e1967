import type { components } from '@/api/schema';

/** The recorded fit (workers/contracts/target_fit.py): in a running job's `params.target_fit`, a finished one's `result.metrics.target`. */
type TargetFitContract = components['schemas']['TargetFit'];
type FitCandidate = components['schemas']['FitCandidate'];

/** What a training job given a target profile adapted to meet it, read from the job. */
export type TargetFit = Pick<TargetFitContract, 'profile' | 'reasons'> & {
  /** what was chosen for the target: image_size, width, precision */
  choice: Partial<Pick<FitCandidate, 'image_size' | 'width' | 'precision'>>;
  /** the trained model on the target when measured, else the chosen candidate's estimate */
  latency_ms: number | null;
  budget_ms: TargetFitContract['latency_budget_ms'];
  /** how many configurations were measured */
  candidates: number;
};

function record(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function number(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * The recorded fit (`kind: "target_fit"`): the finished job's `result.metrics.target` (with the trained
 * model's latency), else the choice the running job keeps in `params.target_fit`; null without a target.
 */
export function targetFitOf(job: { params?: unknown; result?: unknown }): TargetFit | null {
  const fit = record(record(record(job.result)?.metrics)?.target) ?? record(record(job.params)?.target_fit);
  if (!fit) return null;
  // read defensively: the job's params and result are typed per job kind, and an older job may lack a field
  const chosen = record(fit.chosen) ?? {};
  const choice: TargetFit['choice'] = {};
  if (typeof chosen.image_size === 'number') choice.image_size = chosen.image_size;
  if (typeof chosen.width === 'number') choice.width = chosen.width;
  if (chosen.precision === 'fp32' || chosen.precision === 'int8') choice.precision = chosen.precision;
  return {
    profile: typeof fit.profile === 'string' ? fit.profile : '',
    choice,
    reasons: (Array.isArray(fit.reasons) ? fit.reasons : []).filter((reason): reason is string => typeof reason === 'string'),
    latency_ms: number(fit.trained_latency_ms) ?? number(chosen.latency_ms),
    budget_ms: number(fit.latency_budget_ms),
    candidates: Array.isArray(fit.candidates) ? fit.candidates.length : 0,
  };
}
