import type { components } from '@/api/schema';

/** The custom-code resources as the API serves them (API.md §3, workers/contracts/custom_code.py). */
type Schemas = components['schemas'];

export type CodeKind = Schemas['CodeArchiveCodeKindEnum'];
export type QueueName = Schemas['DeviceEnum'];
export type StopReason = Schemas['CustomJobResultStoppedEnum'];

export type CodeArchiveFile = Schemas['CodeFile'];
export type CodeArchive = Schemas['CodeArchive'];
export type CodeFileText = Schemas['CodeFileText'];
export type ResourceLimits = Schemas['ResourceLimits'];
export type CustomJobCreateBody = Schemas['CustomJobCreateRequest'];
/** A hyperparameter's value: passed as --name=value, readable as sampan.run.params. */
export type HyperValue = NonNullable<CustomJobCreateBody['hyperparameters']>[string];
export type RunEnvironment = Schemas['RunEnvironment'];
/**
 * What a run produced. Each of its `artifacts` (what the code kept with log_artifact) holds `path` in
 * the output, its `name`, `size_bytes` (as text), `sha256` and `key`.
 */
export type CustomJobResult = Schemas['CustomJobResult'];
export type CustomJobSpec = Schemas['CustomJobSpec'];
export type CustomJobLineage = Schemas['CustomJobLineage'];

/** Whether a job's result is a custom run's (the contract's `kind`). */
export function isCustomJobResult(result: unknown): result is CustomJobResult {
  return typeof result === 'object' && result !== null && (result as { kind?: unknown }).kind === 'custom_job_result';
}

/** The spec inside a `training.custom` job's params, when it is there. */
export function specOf(params: unknown): CustomJobSpec | null {
  const spec = (params as { spec?: unknown } | null | undefined)?.spec;
  return typeof spec === 'object' && spec !== null && (spec as { kind?: unknown }).kind === 'custom_job_spec' ? (spec as CustomJobSpec) : null;
}
