/**
 * The evaluation report as the UI reads it. The API types `evaluation` as a free-form object;
 * its shape is the worker's report (workers/image_classification/evaluation.py), read and checked here.
 */
export type Averages = { precision: number; recall: number; f1: number };
export type ClassScores = Averages & { class: string; index: number; support: number };
export type SampleRef = number;
export type Mistake = { sample: SampleRef; trueClass: string; predictedClass: string; confidence: number };
export type Evaluation = {
  split: string;
  samples: number;
  classes: string[];
  accuracy: number;
  topK: { k: string; accuracy: number }[];
  macro: Averages;
  weighted: Averages;
  perClass: ClassScores[];
  counts: number[][];
  cellSamples: SampleRef[][][];
  mistakes: Mistake[];
};

type Loose = Record<string, unknown>;

function record(value: unknown): Loose {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Loose) : {};
}

function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function averages(value: unknown): Averages {
  const r = record(value);
  return { precision: num(r.precision), recall: num(r.recall), f1: num(r.f1) };
}

/** A report's sample reference as a sample id of the dataset (null if it is not one). */
export function sampleIdOf(ref: unknown): number | null {
  if (typeof ref === 'number' && Number.isInteger(ref)) return ref;
  if (typeof ref === 'string' && /^\d+$/.test(ref)) return Number(ref);
  return null;
}

function refs(value: unknown): SampleRef[] {
  return Array.isArray(value) ? value.map(sampleIdOf).filter((id): id is number => id !== null) : [];
}

export function readEvaluation(value: unknown): Evaluation | null {
  const report = record(value);
  if (!Array.isArray(report.classes) || typeof report.accuracy !== 'number') return null;
  const classes = report.classes.map(String);
  const matrix = record(report.confusion_matrix);
  const counts = Array.isArray(matrix.counts) ? matrix.counts.map((row) => (Array.isArray(row) ? row.map((cell) => num(cell)) : [])) : [];
  const cellSamples = Array.isArray(matrix.samples) ? matrix.samples.map((row) => (Array.isArray(row) ? row.map(refs) : [])) : [];
  return {
    split: typeof report.split === 'string' ? report.split : 'test',
    samples: num(report.samples),
    classes,
    accuracy: report.accuracy,
    topK: Object.entries(record(report.top_k_accuracy))
      .map(([k, accuracy]) => ({ k, accuracy: num(accuracy) }))
      .sort((a, b) => Number(a.k) - Number(b.k)),
    macro: averages(report.macro),
    weighted: averages(report.weighted),
    perClass: (Array.isArray(report.per_class) ? report.per_class : []).map((raw, index) => {
      const row = record(raw);
      return {
        class: typeof row.class === 'string' ? row.class : (classes[index] ?? String(index)),
        index: num(row.index, index),
        support: num(row.support),
        ...averages(row),
      };
    }),
    counts,
    cellSamples,
    mistakes: (Array.isArray(report.most_confident_mistakes) ? report.most_confident_mistakes : []).flatMap((raw) => {
      const row = record(raw);
      const sample = sampleIdOf(row.sample);
      if (sample === null) return [];
      return [
        {
          sample,
          trueClass: String(row.true_class ?? ''),
          predictedClass: String(row.predicted_class ?? ''),
          confidence: num(row.confidence),
        },
      ];
    }),
  };
}

export type Pair = { a: number | null; b: number | null; delta: number | null };
export type ClassComparison = { class: string; precision: Pair; recall: Pair; f1: Pair; support: { a: number | null; b: number | null } };

function pair(value: unknown): Pair {
  const r = record(value);
  const get = (key: string) => (typeof r[key] === 'number' ? (r[key] as number) : null);
  return { a: get('a'), b: get('b'), delta: get('delta') };
}

/** The comparison's free-form parts: overall metrics and per-class pairs (every delta is b - a). */
export function readComparison(value: { accuracy: unknown; macro_f1: unknown; weighted_f1: unknown; top_k_accuracy: unknown; per_class: unknown[] }) {
  const overall: { metric: string; pair: Pair }[] = [
    { metric: 'Accuracy', pair: pair(value.accuracy) },
    { metric: 'Macro F1', pair: pair(value.macro_f1) },
    { metric: 'Weighted F1', pair: pair(value.weighted_f1) },
    ...Object.entries(record(value.top_k_accuracy)).map(([k, raw]) => ({ metric: `Top-${k} accuracy`, pair: pair(raw) })),
  ];
  const perClass: ClassComparison[] = value.per_class.map((raw) => {
    const row = record(raw);
    const support = record(row.support);
    return {
      class: String(row.class ?? ''),
      precision: pair(row.precision),
      recall: pair(row.recall),
      f1: pair(row.f1),
      support: { a: typeof support.a === 'number' ? support.a : null, b: typeof support.b === 'number' ? support.b : null },
    };
  });
  return { overall, perClass };
}
