// TODO(lead): swap for generated type once the TargetFit contract (workers/contracts/target_fit.py) is in the schema.
/** What a training job given a target profile adapted to meet it, read from the job. */
export type TargetFit = {
  profile: string;
  /** what was chosen for the target: image_size, width, precision */
  choice: Record<string, string | number | boolean | null>;
  /** why, in the server's words */
  reasons: string[];
  /** the trained model on the target when measured, else the chosen candidate's estimate */
  latency_ms: number | null;
  budget_ms: number | null;
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
  const chosen = record(fit.chosen) ?? {};
  const choice: TargetFit['choice'] = {};
  for (const key of ['image_size', 'width', 'precision']) {
    const value = chosen[key];
    if (typeof value === 'string' || typeof value === 'number') choice[key] = value;
  }
  return {
    profile: typeof fit.profile === 'string' ? fit.profile : '',
    choice,
    reasons: (Array.isArray(fit.reasons) ? fit.reasons : []).filter((reason): reason is string => typeof reason === 'string'),
    latency_ms: number(fit.trained_latency_ms) ?? number(chosen.latency_ms),
    budget_ms: number(fit.latency_budget_ms),
    candidates: Array.isArray(fit.candidates) ? fit.candidates.length : 0,
  };
}
