// TODO(lead): swap for generated type once H5's target-aware training records its choice in the schema.
/** What a training job given a target profile adapted to meet it (job.result.target_fit or job.params.target_fit). */
export type TargetFit = {
  profile: string;
  /** the parameters chosen for the target (image_size, width, quantization, ...) */
  choice: Record<string, string | number | boolean | null>;
  /** why, in the server's words */
  reasons: string[];
  latency_ms: number | null;
  budget_ms: number | null;
};

function record(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function text(reason: unknown): string | null {
  if (typeof reason === 'string') return reason;
  const row = record(reason);
  const message = row?.message ?? row?.reason;
  return typeof message === 'string' ? message : null;
}

/** The recorded fit, read leniently (null when the job was not given a target). */
export function targetFitOf(job: { params?: unknown; result?: unknown }): TargetFit | null {
  const fit = record(record(job.result)?.target_fit) ?? record(record(job.params)?.target_fit);
  if (!fit) return null;
  const profile = record(fit.profile);
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  const choice = record(fit.choice) ?? {};
  return {
    profile: typeof fit.profile === 'string' ? fit.profile : typeof profile?.name === 'string' ? profile.name : '',
    choice: Object.fromEntries(Object.entries(choice).filter(([, value]) => value === null || ['string', 'number', 'boolean'].includes(typeof value))) as TargetFit['choice'],
    reasons: (Array.isArray(fit.reasons) ? fit.reasons : []).map(text).filter((reason): reason is string => reason !== null),
    latency_ms: number(fit.latency_ms),
    budget_ms: number(fit.budget_ms ?? profile?.latency_budget_ms),
  };
}
