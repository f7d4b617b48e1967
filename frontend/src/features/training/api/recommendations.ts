// TODO(lead): switch to generated type (components['schemas']['AutoChoice'] / ['PresetRecommendation'])
export type ParamScalar = number | string | boolean;
export interface AutoChoice {
  param: string;
  value: ParamScalar;
  preset_value: ParamScalar;
  reason: string;
}
export interface PresetRecommendation {
  kind: 'preset_recommendation';
  version: number;
  template: string;
  preset: string;
  data: { train_samples: number; classes: number; features?: number };
  hardware: { gpus: number; cpu_count: number; workers: number };
  values: Record<string, ParamScalar>;
  choices: AutoChoice[];
}

/** The recommendation a payload carries (a preset estimate, a training job, a job's params), if any. */
export function recommendationOf(payload: unknown): PresetRecommendation | null {
  if (!payload || typeof payload !== 'object') return null;
  const found = (payload as { recommendation?: unknown }).recommendation;
  return found && typeof found === 'object' && (found as { kind?: unknown }).kind === 'preset_recommendation' ? (found as PresetRecommendation) : null;
}
