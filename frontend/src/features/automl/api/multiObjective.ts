import type { StudyCreate, Study, Trial } from './studies';

// TODO(lead): swap for generated types once H5's study fields are in the schema (`make api-client`).
export type Direction = 'maximize' | 'minimize';
export type StudyGoal = { metric: string; direction: Direction };
export type ConstraintOp = '<=' | '>=';
export type StudyConstraint = { metric: string; op: ConstraintOp; value: number };
/** The target profile snapshot a study measures latency with (workers.contracts.targets.TargetProfile). */
export type StudyTarget = {
  name: string;
  description?: string;
  intra_op_threads: number;
  inter_op_threads: number;
  slowdown: number;
  latency_budget_ms: number | null;
  size_budget_bytes: number | null;
};
export type TrialMeasurements = { latency_ms?: number | null; size_bytes?: number | null; flops?: number | null; [key: string]: unknown };

// TODO(lead): swap for generated type
export type MultiObjectiveStudy = Study & {
  objectives?: StudyGoal[];
  constraints?: StudyConstraint[];
  target_profile?: StudyTarget | null;
  target_profile_id?: number | null;
  multi_objective?: boolean;
  pareto_front?: number[];
  /** how the default search space was adapted to the target (the server's sentences) */
  space_notes?: string[];
};
// TODO(lead): swap for generated type
export type MultiObjectiveTrial = Trial & {
  values?: number[] | null;
  measurements?: TrialMeasurements | null;
  feasible?: boolean | null;
  quantized?: boolean;
  on_front?: boolean;
};
export type SamplerChoice = StudyCreate['sampler'] | 'nsga2' | 'gp';
// TODO(lead): swap for generated type
export type MultiObjectiveStudyCreate = Omit<StudyCreate, 'sampler'> & {
  sampler: SamplerChoice;
  objectives?: StudyGoal[];
  constraints?: StudyConstraint[];
  target_profile?: string | number;
};

/** The samplers a study may use: cmaes optimizes one objective only; nsga2 and gp also take several. */
export const ALL_SAMPLERS = ['sde', 'tpe', 'cmaes', 'gp', 'nsga2', 'random'] as const satisfies readonly SamplerChoice[];
export const MULTI_OBJECTIVE_SAMPLERS = ['sde', 'nsga2', 'tpe', 'gp', 'random'] as const satisfies readonly SamplerChoice[];
export const DEPLOYMENT_METRICS = ['latency_ms', 'size_bytes'] as const;
export const MAX_OBJECTIVES = 3;
/** The search-space dimension that makes a trial serve (and measure) its int8 ONNX. */
export const QUANTIZATION_DIMENSION = { name: 'quantization', type: 'categorical' as const, choices: ['none', 'int8'] };

/** The objectives a study shows: `objectives` when the server sends them, else its single objective. */
export function goalsOf(study: MultiObjectiveStudy): StudyGoal[] {
  return study.objectives?.length ? study.objectives : [{ metric: study.objective.metric, direction: study.objective.direction as Direction }];
}

export function isMultiObjective(study: MultiObjectiveStudy): boolean {
  return study.multi_objective ?? goalsOf(study).length > 1;
}

/** Where a trial sits on the chart: on the feasible non-dominated front, feasible but dominated, infeasible, or not drawn. */
export type PointKind = 'front' | 'feasible' | 'infeasible';
export type ParetoPoint = { trial: MultiObjectiveTrial; x: number; y: number; kind: PointKind };

/** Completed trials with a value for both charted objectives (indexes `xi`, `yi` into `values`). */
export function paretoPoints(trials: MultiObjectiveTrial[], front: number[] | undefined, xi = 0, yi = 1): ParetoPoint[] {
  const onFront = new Set(front ?? trials.filter((trial) => trial.on_front).map((trial) => trial.number));
  const points: ParetoPoint[] = [];
  for (const trial of trials) {
    const values = trial.values ?? [];
    const x = values[xi];
    const y = values[yi];
    if (trial.state !== 'complete' || typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y)) continue;
    const kind: PointKind = trial.feasible === false ? 'infeasible' : onFront.has(trial.number) ? 'front' : 'feasible';
    points.push({ trial, x, y, kind });
  }
  return points;
}

/** A metric's value for people: milliseconds, bytes, or the template's metric as a number. */
export function formatMetric(metric: string, value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  if (metric === 'latency_ms') return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
  if (metric === 'size_bytes') return value >= 1e6 ? `${(value / 1e6).toFixed(2)} MB` : `${(value / 1e3).toFixed(1)} kB`;
  return value.toFixed(4);
}

/** Problems the form can see before the server does, keyed like the server's (`objectives[1].metric`); values are i18n keys. */
export function goalProblems(goals: StudyGoal[], constraints: { metric: string; op: ConstraintOp; value: number | '' }[]): Record<string, string> {
  const problems: Record<string, string> = {};
  if (goals.length < 1 || goals.length > MAX_OBJECTIVES) problems.objectives = 'problems.objectivesCount';
  const seen = new Set<string>();
  goals.forEach((goal, index) => {
    if (seen.has(goal.metric)) problems[`objectives[${index}].metric`] = 'problems.objectiveTwice';
    seen.add(goal.metric);
  });
  constraints.forEach((limit, index) => {
    if (limit.value === '' || !Number.isFinite(limit.value)) problems[`constraints[${index}].value`] = 'problems.number';
    else if (DEPLOYMENT_METRICS.includes(limit.metric as (typeof DEPLOYMENT_METRICS)[number]) && limit.value <= 0) problems[`constraints[${index}].value`] = 'problems.positiveBudget';
  });
  return problems;
}

export type ConstraintDraft = { metric: string; op: ConstraintOp; value: number | '' };
export type DeploymentDraft = {
  enabled: boolean;
  objectives: StudyGoal[];
  constraints: ConstraintDraft[];
  /** a builtin's name or a workspace profile's id; '' for the default (the worker's CPU) */
  target: string;
  quantization: boolean;
};

export function deploymentDraft(metric: string, direction: Direction): DeploymentDraft {
  return { enabled: false, objectives: [{ metric, direction }, { metric: 'latency_ms', direction: 'minimize' }], constraints: [], target: '', quantization: false };
}
