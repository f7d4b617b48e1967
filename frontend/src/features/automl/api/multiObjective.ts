import type { components } from '@/api/schema';
import type { Study, StudyCreate, Trial } from './studies';

/** The deployment-aware parts of a study as the API serves them (platform/automl/api/serializers.py). */
type Schemas = components['schemas'];

export type Direction = Schemas['DirectionEnum'];
/** An objective with its direction (the server stores every goal with one; a request may leave it out). */
export type StudyGoal = Schemas['StudyGoal'] & { direction: Direction };
export type ConstraintOp = Schemas['OpEnum'];
export type StudyConstraint = Schemas['StudyConstraint'];
/** The target profile snapshot a study measures latency with (workers.contracts.targets.TargetProfile). */
export type StudyTarget = Schemas['DeploymentTarget'];
export type TrialMeasurements = Schemas['TrialMeasurements'];
export type SamplerChoice = StudyCreate['sampler'];

/** The samplers a study may use: cmaes optimizes one objective only; nsga2 and gp also take several. */
export const ALL_SAMPLERS = ['sde', 'tpe', 'cmaes', 'gp', 'nsga2', 'random'] as const satisfies readonly SamplerChoice[];
export const MULTI_OBJECTIVE_SAMPLERS = ['sde', 'nsga2', 'tpe', 'gp', 'random'] as const satisfies readonly SamplerChoice[];
export const DEPLOYMENT_METRICS = ['latency_ms', 'size_bytes'] as const;
export const MAX_OBJECTIVES = 3;
/** The search-space dimension that makes a trial serve (and measure) its int8 ONNX. */
export const QUANTIZATION_DIMENSION = { name: 'quantization', type: 'categorical' as const, choices: ['none', 'int8'] };

/** The objectives a study shows: `objectives` when the server sends them, else its single objective. */
export function goalsOf(study: Pick<Study, 'objective' | 'objectives'>): StudyGoal[] {
  const first = study.objective.direction;
  return study.objectives?.length
    ? study.objectives.map((goal, index) => ({ metric: goal.metric, direction: goal.direction ?? (index === 0 ? first : 'minimize') }))
    : [{ metric: study.objective.metric, direction: first }];
}

export function isMultiObjective(study: Pick<Study, 'objective' | 'objectives' | 'multi_objective'>): boolean {
  // a study read from an older server may lack both fields
  return study.multi_objective ?? goalsOf(study).length > 1;
}

/** Where a trial sits on the chart: on the feasible non-dominated front, feasible but dominated, infeasible, or not drawn. */
export type PointKind = 'front' | 'feasible' | 'infeasible';
export type ParetoPoint = { trial: Trial; x: number; y: number; kind: PointKind };

/** Completed trials with a value for both charted objectives (indexes `xi`, `yi` into `values`). */
export function paretoPoints(trials: Trial[], front: number[] | undefined, xi = 0, yi = 1): ParetoPoint[] {
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
