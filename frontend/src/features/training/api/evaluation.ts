/**
 * The evaluation report as the UI reads it. The API types `evaluation` as a free-form object;
 * its shape is the worker's report (workers/image_classification/evaluation.py), read and checked here.
 */
export type Averages = { precision: number; recall: number; f1: number };
export type ClassScores = Averages & { class: string; index: number; support: number };
export type SampleRef = number;
/** A mistake of a classifier: images carry only the sample, text templates the text, tabular ones the row. */
export type Mistake = {
  sample: SampleRef;
  trueClass: string;
  predictedClass: string;
  confidence: number;
  text?: string;
  values?: Record<string, unknown>;
};
/** Permutation importance of one table column (drop of the score when it is shuffled). */
export type FeatureImportance = { feature: string; importance: number; std: number };
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
  featureImportance: FeatureImportance[];
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
          ...(typeof row.text === 'string' ? { text: row.text } : {}),
          ...(row.values && typeof row.values === 'object' && !Array.isArray(row.values) ? { values: row.values as Record<string, unknown> } : {}),
        },
      ];
    }),
    featureImportance: readFeatureImportance(report.feature_importance),
  };
}

export function readFeatureImportance(value: unknown): FeatureImportance[] {
  return (Array.isArray(value) ? value : []).flatMap((raw) => {
    const row = record(raw);
    return typeof row.feature === 'string' ? [{ feature: row.feature, importance: num(row.importance), std: num(row.std) }] : [];
  });
}

export type RegressionPoint = { sample: SampleRef | null; actual: number; predicted: number };
export type LargestError = RegressionPoint & { values: Record<string, unknown> };
/** A regression model's report (workers/tabular/evaluation.py, task "regression"). */
export type RegressionEvaluation = {
  split: string;
  samples: number;
  mae: number;
  rmse: number;
  r2: number;
  points: RegressionPoint[];
  histogram: { from: number; to: number; count: number }[];
  largestErrors: LargestError[];
  featureImportance: FeatureImportance[];
};

function point(raw: unknown): RegressionPoint | null {
  const row = record(raw);
  if (typeof row.actual !== 'number' || typeof row.predicted !== 'number') return null;
  return { sample: sampleIdOf(row.sample), actual: row.actual, predicted: row.predicted };
}

export function readRegression(value: unknown): RegressionEvaluation | null {
  const report = record(value);
  if (report.task !== 'regression' && !(typeof report.rmse === 'number' && typeof report.r2 === 'number')) return null;
  const residuals = record(report.residuals);
  const histogram = record(residuals.histogram);
  const edges = Array.isArray(histogram.edges) ? histogram.edges.map((edge) => num(edge)) : [];
  const counts = Array.isArray(histogram.counts) ? histogram.counts.map((count) => num(count)) : [];
  return {
    split: typeof report.split === 'string' ? report.split : 'test',
    samples: num(report.samples),
    mae: num(report.mae, Number.NaN),
    rmse: num(report.rmse, Number.NaN),
    r2: num(report.r2, Number.NaN),
    points: (Array.isArray(residuals.points) ? residuals.points : []).map(point).filter((p): p is RegressionPoint => p !== null),
    histogram: counts.map((count, index) => ({ from: edges[index] ?? 0, to: edges[index + 1] ?? 0, count })),
    largestErrors: (Array.isArray(report.largest_errors) ? report.largest_errors : []).flatMap((raw) => {
      const p = point(raw);
      const values = record(record(raw).values);
      return p ? [{ ...p, values }] : [];
    }),
    featureImportance: readFeatureImportance(report.feature_importance),
  };
}

export type Report = { kind: 'classification'; evaluation: Evaluation } | { kind: 'regression'; evaluation: RegressionEvaluation };

/** Any template's report: a regression report (MAE, RMSE, R2, residuals) or a classification one. */
export function readReport(value: unknown): Report | null {
  const regression = readRegression(value);
  if (regression) return { kind: 'regression', evaluation: regression };
  const classification = readEvaluation(value);
  return classification ? { kind: 'classification', evaluation: classification } : null;
}

/** What a template's samples are called in sentences ("10 test texts"). */
export function sampleNoun(template: string): { one: string; many: string } {
  if (template.startsWith('text')) return { one: 'text', many: 'texts' };
  if (template.startsWith('tabular')) return { one: 'row', many: 'rows' };
  return { one: 'image', many: 'images' };
}

/** Regression metric pairs of two reports; lower is better for MAE and RMSE, higher for R2. */
export function regressionComparison(a: RegressionEvaluation, b: RegressionEvaluation) {
  const pairOf = (x: number, y: number): Pair => ({ a: x, b: y, delta: Number.isFinite(x) && Number.isFinite(y) ? y - x : null });
  return [
    { metric: 'MAE', key: 'mae', betterWhen: 'lower' as const, pair: pairOf(a.mae, b.mae) },
    { metric: 'RMSE', key: 'rmse', betterWhen: 'lower' as const, pair: pairOf(a.rmse, b.rmse) },
    { metric: 'R²', key: 'r2', betterWhen: 'higher' as const, pair: pairOf(a.r2, b.r2) },
  ];
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
