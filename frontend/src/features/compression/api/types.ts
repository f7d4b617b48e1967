import type { components } from '@/api/schema';

/** The compression resources as the API serves them (workers/contracts/compression.py, workers/contracts/targets.py). */
type Schemas = components['schemas'];

export type Precision = Schemas['PrecisionEnum'];
export type QuantizeMode = Schemas['QuantizeEnum'];

export type PruneSpec = Schemas['PruneSpec'];
export type DistillSpec = Schemas['DistillSpec'];

/** One variant to produce. */
export type CompressionRecipe = Schemas['CompressionRecipe'];

/** A latency measured with a target profile's settings (workers/contracts/targets.py). */
export type LatencyMeasurement = Schemas['LatencyMeasurement'];

export type VariantSummary = Schemas['VariantSummary'];

/** A variant in the report: its model version (the report's paths replaced by ids), summary and notes. */
export type CompressionReportVariant = Schemas['ReportedVariant'];

/** A latency measured in a browser with onnxruntime-web (POST /compressions/{id}/browser-latency/). */
export type BrowserLatency = Schemas['BrowserLatency'];
/** What the UI posts: the measurement without its time (the server stamps it). */
export type BrowserLatencyBody = Schemas['BrowserLatencyRequest'];

export type CompressionReport = Schemas['CompressionRunReport'];

export type CompressionSpec = Schemas['CompressionSpec'];

export type Compression = Schemas['Compression'];

export type CompressionPreset = Schemas['PresetEnum'];

/** The body of POST /model-versions/{id}/compress/. */
export type CompressBody = Schemas['CompressionCreateRequest'];

/** A deployment target as the dialog lists it: builtins (GET /target-profiles/builtins/) have id null and are named. */
export type TargetProfileRow = Pick<Schemas['DeploymentTarget'], 'name'> &
  Partial<Pick<Schemas['DeploymentTarget'], 'description' | 'slowdown' | 'latency_budget_ms' | 'size_budget_bytes'>> & {
    id: number | null;
    builtin?: boolean;
  };

/** A compressed model version's lineage (ModelVersion.lineage when source is "compressed"). */
export type CompressionLineage = Schemas['CompressionLineage'];
