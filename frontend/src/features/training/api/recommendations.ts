import type { components } from '@/api/schema';

// The contracts of workers/contracts/templates.py (preset recommendations), as the API schema types them.
export type ParamScalar = number | string | boolean;
export type AutoChoice = components['schemas']['AutoChoice'];
export type PresetRecommendation = components['schemas']['PresetRecommendation'];

/** The recommendation a payload carries (a preset estimate, a training job, a job's params), if any. */
export function recommendationOf(payload: unknown): PresetRecommendation | null {
  if (!payload || typeof payload !== 'object') return null;
  const found = (payload as { recommendation?: unknown }).recommendation;
  return found && typeof found === 'object' && (found as { kind?: unknown }).kind === 'preset_recommendation' ? (found as PresetRecommendation) : null;
}
