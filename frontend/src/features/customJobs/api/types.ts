/**
 * The custom-code resources as the API serves them (API.md §3, workers/contracts/custom_code.py).
 * TODO(lead): generated type — replace with components['schemas'][...] once `make api-client` runs.
 */

export type HyperValue = string | number | boolean;
export type CodeKind = 'script' | 'zip' | 'notebook';
export type QueueName = 'cpu' | 'gpu';
export type StopReason = 'time_limit' | 'memory_limit' | 'cancelled' | 'pruned' | 'preempted';

// TODO(lead): generated type
export type CodeArchiveFile = { path: string; size_bytes: number };

// TODO(lead): generated type
export type CodeArchive = {
  id: number;
  project: number;
  name: string;
  filename: string;
  code_kind: CodeKind;
  sha256: string;
  size_bytes: number;
  files: CodeArchiveFile[];
  entry_point: string;
  requirements: string;
  created_by: number | string | null;
  created_at: string;
};

// TODO(lead): generated type
export type CodeFileText = { path: string; text: string };

// TODO(lead): generated type
export type ResourceLimits = { wall_time_s: number; memory_mb: number; cpus: number };

// TODO(lead): generated type
export type CustomJobCreateBody = {
  project: number;
  code_archive: number;
  entry_point?: string;
  args?: string[];
  hyperparameters?: Record<string, HyperValue>;
  requirements?: string;
  dataset_version?: number | null;
  queue?: QueueName;
  limits?: Partial<ResourceLimits>;
  network?: boolean;
  name?: string;
};

// TODO(lead): generated type
export type RunEnvironment = { python: string; platform: string; packages: Record<string, string> };

// TODO(lead): generated type
export type CustomJobResult = {
  kind: 'custom_job_result';
  version: number;
  exit_code: number | null;
  stopped: StopReason | null;
  reason: string;
  duration_s: number;
  peak_memory_mb: number;
  metrics: Record<string, number>;
  history: Record<string, number>[];
  /** What the code kept with log_artifact: `path` in the output, its `name`, `size_bytes` (as text), `sha256`, `key`. */
  artifacts: { path: string; name?: string; size_bytes?: string; sha256?: string; key?: string }[];
  model: { onnx: string; labels: string; preprocessing: string } | null;
  environment: RunEnvironment;
  requirements_hash: string;
  isolation: Record<string, boolean>;
  model_version?: number | null;
  model_version_name?: string | null;
};

// TODO(lead): generated type
export type CustomJobSpec = {
  kind: 'custom_job_spec';
  code_sha256: string;
  code_kind: CodeKind;
  entry_point: string;
  args: string[];
  hyperparameters: Record<string, HyperValue>;
  requirements: string;
  requirements_hash: string;
  limits: ResourceLimits;
  network: boolean;
  queue: QueueName;
  objective?: Record<string, string>;
};

/** Whether a job's result is a custom run's (the contract's `kind`). */
export function isCustomJobResult(result: unknown): result is CustomJobResult {
  return typeof result === 'object' && result !== null && (result as { kind?: unknown }).kind === 'custom_job_result';
}

/** The spec inside a `training.custom` job's params, when it is there. */
export function specOf(params: unknown): CustomJobSpec | null {
  const spec = (params as { spec?: unknown } | null | undefined)?.spec;
  return typeof spec === 'object' && spec !== null && (spec as { kind?: unknown }).kind === 'custom_job_spec' ? (spec as CustomJobSpec) : null;
}

// TODO(lead): generated type
export type CustomJobLineage = {
  kind: 'custom_job_lineage';
  version: number;
  code_archive: number;
  code_sha256: string;
  code_name: string;
  entry_point: string;
  args: string[];
  hyperparameters: Record<string, HyperValue>;
  requirements: string;
  requirements_hash: string;
  dataset_version: number | null;
  environment: RunEnvironment;
  job: number;
};
