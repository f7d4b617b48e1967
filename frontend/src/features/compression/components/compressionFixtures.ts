import type { Compression, CompressionReport, VariantSummary } from '../api/types';

function latency(median: number, slowdown = 4): VariantSummary['latency'] {
  return { kind: 'latency_measurement', version: 1, median_ms: median, p90_ms: median * 1.2, runs: 30, target_ms: median * slowdown, profile: 'edge-arm-slow', threads: 1, provider: 'CPUExecutionProvider', machine: 'x86_64/2' };
}

export const REPORT: CompressionReport = {
  kind: 'compression_report',
  version: 1,
  template: 'image_classification',
  target: 'edge-arm-slow',
  parent: { size_bytes: 400_000, parameters: 100_000, flops: 2_000_000, precision: 'fp32', latency: latency(2), metric: 'accuracy', value: 0.9, delta: 0, model_version: 11, model_version_name: 'V1' },
  variants: [
    {
      name: 'int8',
      recipe: { name: 'int8', quantize: 'static' },
      model_version: 12,
      model_version_name: 'V2',
      summary: { size_bytes: 100_000, parameters: 100_000, flops: 2_000_000, precision: 'int8', latency: latency(1), metric: 'accuracy', value: 0.895, delta: -0.005 },
      notes: ['static int8 kept the accuracy'],
    },
    {
      name: 'pruned-50-int8',
      recipe: { name: 'pruned-50-int8', prune: { flops_ratio: 0.5 }, quantize: 'auto', fine_tune_epochs: 2 },
      model_version: 13,
      model_version_name: 'V3',
      summary: { size_bytes: 50_000, parameters: 50_000, flops: 1_000_000, precision: 'int8', latency: latency(0.5), metric: 'accuracy', value: 0.88, delta: -0.02 },
      notes: [],
    },
  ],
  skipped: [{ name: 'distilled', reason: 'no smaller student for this backbone' }],
  browser_latency: [],
};

export const COMPRESSION: Compression = {
  id: 7,
  workspace: 1,
  project: 3,
  parent: 11,
  parent_name: 'V1',
  teacher: null,
  preset: '',
  spec: {
    kind: 'compression_spec',
    version: 1,
    recipes: REPORT.variants.map((variant) => variant.recipe),
    target: {
      kind: 'target_profile',
      version: 1,
      name: 'edge-arm-slow',
      description: '',
      runtime: 'onnxruntime',
      execution_provider: 'CPUExecutionProvider',
      intra_op_threads: 1,
      inter_op_threads: 1,
      batch_size: 1,
      slowdown: 4,
      latency_budget_ms: null,
      size_budget_bytes: null,
    },
  },
  job: 40,
  status: 'succeeded',
  progress: null,
  error: null,
  report: REPORT,
  created_by: 'ada',
  created_at: '2026-12-05T18:00:00Z',
};

export const VERSIONS = [
  { id: 11, name: 'V1', template: 'image_classification', project: 3 },
  { id: 12, name: 'V2', template: 'image_classification', project: 3 },
  { id: 13, name: 'V3', template: 'image_classification', project: 3 },
  { id: 14, name: 'V4', template: 'text_classification', project: 3 },
];

export function job(status: string, progress: Record<string, unknown> = {}) {
  return { id: 40, kind: 'training.compress', status, progress, error: status === 'failed' ? 'out of memory' : '' };
}
