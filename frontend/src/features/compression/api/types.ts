// Local types for the compression endpoints (API.md "Platform (H3)"; workers/contracts/compression.py).
// TODO(lead): swap for generated type (components['schemas']['Compression'] etc.) after `make api-client`.

export type Precision = 'fp32' | 'int8';
export type QuantizeMode = 'static' | 'qat' | 'auto' | 'dynamic';

export type PruneSpec = { flops_ratio?: number; latency_ms?: number };
export type DistillSpec = { student?: string; temperature?: number; alpha?: number };

/** One variant to produce. */
export type CompressionRecipe = {
  name: string;
  prune?: PruneSpec;
  distill?: DistillSpec;
  quantize?: QuantizeMode;
  fine_tune_epochs?: number;
};

/** A latency measured with a target profile's settings (workers/contracts/targets.py). */
export type LatencyMeasurement = {
  kind?: 'latency_measurement';
  version?: number;
  median_ms: number;
  p90_ms: number;
  runs: number;
  target_ms: number;
  profile: string;
  threads: number;
  provider: string;
  machine: string;
};

export type VariantSummary = {
  size_bytes: number;
  parameters: number;
  flops: number;
  precision: Precision;
  latency: LatencyMeasurement;
  metric: string;
  value: number;
  delta: number;
};

export type CompressionReportVariant = {
  name: string;
  recipe: CompressionRecipe;
  /** the variant's model version (the report's paths replaced by ids) */
  model_version: number;
  model_version_name?: string;
  summary: VariantSummary;
  notes: string[];
};

/** A latency measured in a browser with onnxruntime-web (POST /compressions/{id}/browser-latency/). */
export type BrowserLatency = {
  model_version: number;
  median_ms: number;
  p90_ms: number;
  runs: number;
  user_agent: string;
  backend: 'wasm';
  measured_at?: string;
};

export type CompressionReport = {
  kind: 'compression_report' | 'compression_result';
  version: number;
  template: string;
  /** the target profile the latency was measured with */
  target?: string;
  parent: VariantSummary & { model_version?: number; model_version_name?: string };
  variants: CompressionReportVariant[];
  skipped: { name: string; reason: string }[];
  browser_latency?: BrowserLatency[];
  notes?: string[];
};

export type CompressionSpec = {
  kind?: 'compression_spec';
  version?: number;
  recipes: CompressionRecipe[];
  target?: { name: string; latency_budget_ms?: number | null; slowdown?: number } & Record<string, unknown>;
  max_metric_drop?: number;
  seed?: number;
};

/** The job as the compression row may nest it (or only its id). */
export type CompressionJobRef = { id: number; status: string; progress?: unknown; error?: string | null };

export type Compression = {
  id: number;
  workspace: number;
  project: number;
  parent: number;
  parent_name?: string;
  teacher: number | null;
  preset?: string | null;
  spec: CompressionSpec;
  job: number | CompressionJobRef | null;
  /** the job's status, progress and error, copied onto the row */
  status?: string | null;
  progress?: unknown;
  error?: string | null;
  report: CompressionReport | null;
  created_by?: string;
  created_at?: string;
};

export type CompressionPreset = 'smaller' | 'balanced' | 'faster' | 'distilled';

export type CompressBody = {
  preset?: CompressionPreset;
  recipes?: CompressionRecipe[];
  teacher?: number;
  target_profile?: string;
  max_metric_drop?: number;
};

/** A deployment target (GET /api/v1/target-profiles/, H5): builtins have id null and are named. */
export type TargetProfileRow = {
  id: number | null;
  name: string;
  builtin?: boolean;
  description?: string;
  slowdown?: number;
  latency_budget_ms?: number | null;
  size_budget_bytes?: number | null;
};

/** A compressed model version's lineage (ModelVersion.lineage when source is "compressed"). */
export type CompressionLineage = {
  kind: 'compression_lineage';
  version: number;
  parent: number;
  teacher: number | null;
  recipe: CompressionRecipe;
  compression: number;
};
