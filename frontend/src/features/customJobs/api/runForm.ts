import type { CustomJobCreateBody, HyperValue, QueueName } from './types';

/** A hyperparameter row of the run form, as typed. */
export type HyperRow = { name: string; value: string };

/** What the run form holds before it becomes a request body. */
export type RunFormValues = {
  entryPoint: string;
  args: string;
  hyperparameters: HyperRow[];
  requirements: string;
  datasetVersion: number | null;
  queue: QueueName;
  wallTimeS: number | null;
  memoryMb: number | null;
  cpus: number | null;
  network: boolean;
  name: string;
};

export const HYPERPARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The platform's documented defaults (SAMPAN_CUSTOM_JOB_WALL_TIME_S, _MEMORY_MB, _CPUS); an empty field sends none. */
export const DEFAULT_LIMITS = { wall_time_s: 3600, memory_mb: 4096, cpus: 2 } as const;

/** A typed value keeps its type: `2` an int, `0.1` a float, `true`/`false` a bool, anything else text. */
export function parseHyperValue(text: string): HyperValue {
  const trimmed = text.trim();
  if (trimmed === 'true') return true;
  if (trimmed === 'false') return false;
  if (/^[-+]?\d+$/.test(trimmed)) return Number.parseInt(trimmed, 10);
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) return Number.parseFloat(trimmed);
  return text;
}

/** Command-line arguments as a shell splits simple input: on spaces, with "double" or 'single' quotes keeping a part whole. */
export function splitArgs(text: string): string[] {
  const args: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  let started = false;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = null;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (/\s/.test(char)) {
      if (started || current) args.push(current);
      current = '';
      started = false;
    } else {
      current += char;
    }
  }
  if (started || current) args.push(current);
  return args;
}

/** The rows' problems: a name that is not an identifier, a name given twice (row index -> problem key). */
export function hyperRowProblems(rows: HyperRow[]): Record<number, 'name' | 'duplicate'> {
  const problems: Record<number, 'name' | 'duplicate'> = {};
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    const name = row.name.trim();
    if (!name && !row.value.trim()) return; // an empty row is ignored
    if (!HYPERPARAMETER_NAME.test(name)) problems[index] = 'name';
    else if (seen.has(name)) problems[index] = 'duplicate';
    seen.add(name);
  });
  return problems;
}

/** The POST /custom-jobs/ body: empty fields are left to the platform's defaults. */
export function runBody(projectId: number, archiveId: number, values: RunFormValues): CustomJobCreateBody {
  const body: CustomJobCreateBody = { project: projectId, code_archive: archiveId, queue: values.queue, network: values.network };
  if (values.entryPoint.trim()) body.entry_point = values.entryPoint.trim();
  const args = splitArgs(values.args);
  if (args.length) body.args = args;
  const hyperparameters: Record<string, HyperValue> = {};
  for (const row of values.hyperparameters) if (row.name.trim()) hyperparameters[row.name.trim()] = parseHyperValue(row.value);
  if (Object.keys(hyperparameters).length) body.hyperparameters = hyperparameters;
  body.requirements = values.requirements;
  body.dataset_version = values.datasetVersion;
  const limits: NonNullable<CustomJobCreateBody['limits']> = {};
  if (values.wallTimeS !== null) limits.wall_time_s = values.wallTimeS;
  if (values.memoryMb !== null) limits.memory_mb = values.memoryMb;
  if (values.cpus !== null) limits.cpus = values.cpus;
  if (Object.keys(limits).length) body.limits = limits;
  if (values.name.trim()) body.name = values.name.trim();
  return body;
}
