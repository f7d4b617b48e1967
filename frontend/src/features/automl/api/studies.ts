import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';
import type { SearchDimension } from '@/api/templates';
import { i18n } from '@/i18n';

export type Study = components['schemas']['Study'];
export type StudyCreate = components['schemas']['StudyCreateRequest'];
export type Trial = components['schemas']['Trial'];
export type StudyResults = components['schemas']['StudyResults'];
export type { SearchDimension };
export type ModelVersion = components['schemas']['ModelVersion'];
/** A study's budget that fits the workers online (GET /studies/defaults/). */
export type StudyDefaults = components['schemas']['StudyDefaults'];

export const SAMPLERS = ['sde', 'tpe', 'cmaes', 'random'] as const satisfies readonly StudyCreate['sampler'][];
export const PRUNERS = ['median', 'successive_halving', 'none'] as const satisfies readonly StudyCreate['pruner'][];
/** Parameter importances are computed from this many completed trials on (automl.selectors.param_importances). */
export const IMPORTANCES_MIN_COMPLETE = 3;

export function listStudies(projectId?: number) {
  return unwrap(api.GET('/api/v1/studies/', { params: { query: { project: projectId, page_size: 100 } } }));
}

export function getStudy(id: number) {
  return unwrap(api.GET('/api/v1/studies/{id}/', { params: { path: { id } } }));
}

export function listTrials(id: number) {
  return unwrap(api.GET('/api/v1/studies/{id}/trials/', { params: { path: { id } } }));
}

export function getResults(id: number) {
  return unwrap(api.GET('/api/v1/studies/{id}/results/', { params: { path: { id } } }));
}

export function getStudyDefaults(template: string) {
  return unwrap(api.GET('/api/v1/studies/defaults/', { params: { query: { template } } }));
}

export function createStudy(body: StudyCreate) {
  return unwrap(api.POST('/api/v1/studies/', { body }));
}

export type StudyAction = 'pause' | 'resume' | 'stop';

export function studyAction(id: number, action: StudyAction) {
  const options = { params: { path: { id } } };
  if (action === 'pause') return unwrap(api.POST('/api/v1/studies/{id}/pause/', options));
  if (action === 'resume') return unwrap(api.POST('/api/v1/studies/{id}/resume/', options));
  return unwrap(api.POST('/api/v1/studies/{id}/stop/', options));
}

export function promoteTrial(id: number, trial?: number) {
  return unwrap(api.POST('/api/v1/studies/{id}/promote/', { params: { path: { id } }, body: trial === undefined ? {} : { trial } }));
}

// What the create form needs to pick a dataset version (read straight from the REST API).
export function listProjects() {
  return unwrap(api.GET('/api/v1/projects/', { params: { query: { page_size: 100 } } }));
}

export function listDatasets(projectId: number) {
  return unwrap(api.GET('/api/v1/datasets/', { params: { query: { project: projectId, page_size: 100 } } }));
}

export function listDatasetVersions(datasetId: number) {
  return unwrap(api.GET('/api/v1/datasets/{dataset_id}/versions/', { params: { path: { dataset_id: datasetId }, query: { page_size: 100 } } }));
}

/**
 * Problems the editor can see before asking the server (which validates again and names the
 * field the same way: `search_space[1].high`).
 */
export function searchSpaceProblems(space: SearchDimension[]): Record<string, string> {
  const problems: Record<string, string> = {};
  const names = new Set<string>();
  space.forEach((dim, index) => {
    const at = `search_space[${index}]`;
    if (!dim.name) problems[`${at}.name`] = i18n.t('automl:problems.pickParameter');
    else if (names.has(dim.name)) problems[`${at}.name`] = i18n.t('automl:problems.twice', { name: dim.name });
    names.add(dim.name);
    if (dim.type === 'categorical') {
      if (!dim.choices?.length) problems[`${at}.choices`] = i18n.t('automl:problems.oneChoice');
      return;
    }
    const { low, high } = dim;
    if (typeof low !== 'number' || !Number.isFinite(low)) problems[`${at}.low`] = i18n.t('automl:problems.number');
    else if (typeof high !== 'number' || !Number.isFinite(high)) problems[`${at}.high`] = i18n.t('automl:problems.number');
    else if (!(low < high)) problems[`${at}.high`] = i18n.t('automl:problems.greaterThanLow', { low });
    else if (dim.log && low <= 0) problems[`${at}.low`] = i18n.t('automl:problems.logPositive');
    if (dim.type === 'int' && ((typeof low === 'number' && !Number.isInteger(low)) || (typeof high === 'number' && !Number.isInteger(high))))
      problems[`${at}.low`] = i18n.t('automl:problems.wholeNumbers');
  });
  if (space.length === 0) problems.search_space = i18n.t('automl:problems.searchOne');
  return problems;
}

/** The server's 400 details ({"search_space[0].high": ["..."]}) as one message per field. */
export function fieldErrors(details: unknown): Record<string, string> {
  if (!details || typeof details !== 'object') return {};
  return Object.fromEntries(
    Object.entries(details as Record<string, unknown>).map(([field, value]) => [field, Array.isArray(value) ? value.join(' ') : String(value)]),
  );
}

export function isLive(study: Pick<Study, 'status' | 'trials'>): boolean {
  return study.status === 'running' || study.trials.running > 0;
}

/** The caller may start, control and promote studies in the study's workspace (unknown role: the server decides). */
export function canChange(study: { my_role?: string | null }): boolean {
  return study.my_role !== 'viewer';
}

export function formatValue(value: number | null | undefined, digits = 4): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(digits) : '—';
}

export function formatParam(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toPrecision(3);
  return String(value);
}
