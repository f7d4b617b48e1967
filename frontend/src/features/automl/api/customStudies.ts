import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';
import { i18n } from '@/i18n';
import type { SearchDimension, Study } from './studies';

export { CUSTOM_TEMPLATE, customCodeOf, type CustomCode } from './customCode';

/** POST /api/v1/studies/ with a code archive: a study whose trials run the user's own code. */
export type CustomStudyCreate = components['schemas']['CustomStudyCreateRequest'];

/** An uploaded code archive, as the form lists it (GET /api/v1/code-archives/). */
export type CodeArchive = components['schemas']['CodeArchive'];

export const HYPERPARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const METRIC_NAME = /^[A-Za-z_][A-Za-z0-9_./-]{0,99}$/;

export function createCustomStudy(body: CustomStudyCreate): Promise<Study> {
  // The endpoint takes a StudyStartRequest: a template study or a custom-code one.
  return unwrap(api.POST('/api/v1/studies/', { body }));
}

export function listCodeArchives(projectId: number) {
  return unwrap(api.GET('/api/v1/code-archives/', { params: { query: { project: projectId, page_size: 100 } } }));
}

/** Problems the custom-code part of the form can see before asking the server. */
export function customProblems({ code, metric, space }: { code: number | null; metric: string; space: SearchDimension[] }): Record<string, string> {
  const problems: Record<string, string> = {};
  if (code === null) problems.code_archive = i18n.t('automl:custom.problems.pickCode');
  if (!METRIC_NAME.test(metric.trim())) problems['objective.metric'] = i18n.t('automl:custom.problems.metric');
  space.forEach((dim, index) => {
    if (dim.name && !HYPERPARAMETER_NAME.test(dim.name)) problems[`search_space[${index}].name`] = i18n.t('automl:custom.problems.name', { name: dim.name });
  });
  return problems;
}
