import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type RetrainBody = components['schemas']['RetrainRequest'];
export type RetrainJob = components['schemas']['Job'];
/** Retrain from a model version, or from the version a deployment serves (its primary). */
export type RetrainSource = { modelVersion: number } | { deployment: number };

export function retrain(source: RetrainSource, body: RetrainBody) {
  if ('deployment' in source) {
    return unwrap(api.POST('/api/v1/deployments/{id}/retrain/', { params: { path: { id: source.deployment } }, body }));
  }
  return unwrap(api.POST('/api/v1/model-versions/{id}/retrain/', { params: { path: { id: source.modelVersion } }, body }));
}

/** The canaries a deployment has, plus `modelVersion` at `weight` %: what "Start a canary" sends. */
export function withCanary(
  traffic: { model_version: number; role: string; weight: number }[] | undefined,
  modelVersion: number,
  weight: number,
): { model_version: number; weight: number }[] {
  const others = (traffic ?? [])
    .filter((entry) => entry.role === 'canary' && entry.model_version !== modelVersion)
    .map((entry) => ({ model_version: entry.model_version, weight: entry.weight }));
  return [...others, { model_version: modelVersion, weight }];
}
