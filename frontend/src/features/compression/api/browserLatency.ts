// Times a model version's ONNX in this browser with onnxruntime-web (wasm backend, 1 thread).
// The runtime and its .wasm load only when a measurement starts; the .wasm is an asset of this
// build (served by the platform itself), never a CDN, so it works offline.
import wasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import { errorFromText } from '@/api/client';


export const WARMUP_RUNS = 3;
export const TIMED_RUNS = 20;

export type BrowserTiming = { median_ms: number; p90_ms: number; runs: number };

/** The median and 90th percentile (nearest rank) of a list of times in milliseconds. */
export function summarize(times: number[]): BrowserTiming {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median_ms: median, p90_ms: at(0.9), runs: sorted.length };
}

type Ort = typeof import('onnxruntime-web/wasm');

let runtime: Promise<Ort> | null = null;

async function loadRuntime(): Promise<Ort> {
  if (!runtime) {
    runtime = import('onnxruntime-web/wasm').then((ort) => {
      ort.env.wasm.wasmPaths = { wasm: new URL(wasmUrl, window.location.href).href };
      ort.env.wasm.numThreads = 1;
      ort.env.wasm.proxy = false;
      ort.env.logLevel = 'error';
      return ort;
    });
    runtime.catch(() => {
      runtime = null;
    });
  }
  return runtime;
}

/** Zeros shaped like the graph's input (dynamic dimensions -> 1, as the worker's measurement does). */
function zeros(ort: Ort, type: string, shape: readonly (number | string)[]) {
  const dims = shape.map((dim) => (typeof dim === 'number' && dim > 0 ? dim : 1));
  const size = dims.reduce((product, dim) => product * dim, 1);
  switch (type) {
    case 'int64':
      return new ort.Tensor('int64', new BigInt64Array(size), dims);
    case 'int32':
      return new ort.Tensor('int32', new Int32Array(size), dims);
    case 'bool':
      return new ort.Tensor('bool', new Uint8Array(size), dims);
    case 'uint8':
      return new ort.Tensor('uint8', new Uint8Array(size), dims);
    case 'string':
      return new ort.Tensor('string', Array.from({ length: size }, () => ''), dims);
    default:
      return new ort.Tensor('float32', new Float32Array(size), dims);
  }
}

async function downloadModel(modelVersionId: number): Promise<Uint8Array> {
  const response = await globalThis.fetch(new URL(`/api/v1/model-versions/${modelVersionId}/onnx/`, window.location.href).href, { credentials: 'same-origin' });
  if (!response.ok) throw errorFromText(response.status, response.statusText, await response.text());
  return new Uint8Array(await response.arrayBuffer());
}

/** Downloads a model version's ONNX and times it: warm-up runs, then `runs` timed runs (median, p90). */
export async function measureInBrowser(modelVersionId: number, { warmup = WARMUP_RUNS, runs = TIMED_RUNS } = {}): Promise<BrowserTiming> {
  const [ort, model] = await Promise.all([loadRuntime(), downloadModel(modelVersionId)]);
  const session = await ort.InferenceSession.create(model, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  try {
    const feeds: Record<string, InstanceType<Ort['Tensor']>> = {};
    for (const input of session.inputMetadata) {
      feeds[input.name] = input.isTensor ? zeros(ort, input.type, input.shape) : zeros(ort, 'float32', [1]);
    }
    for (let index = 0; index < warmup; index += 1) await session.run(feeds);
    const times: number[] = [];
    for (let index = 0; index < runs; index += 1) {
      const start = performance.now();
      await session.run(feeds);
      times.push(performance.now() - start);
    }
    return summarize(times);
  } finally {
    await session.release();
  }
}
