import { api, unwrap, type Paginated } from '@/api/client';
import { i18n } from '@/i18n';
import type { SearchDimension, Study, StudyCreate } from './studies';

export { CUSTOM_TEMPLATE, customCodeOf, type CustomCode } from './customCode';

// TODO(lead): generated type — components['schemas']['CustomStudyCreateRequest'] once `make api-client` has run.
/** POST /api/v1/studies/ with a code archive: a study whose trials run the user's own code. */
export type CustomStudyCreate = {
  project?: number;
  name?: string;
  code_archive: number;
  entry_point?: string;
  args?: string[];
  requirements?: string | null;
  dataset_version?: number | null;
  search_space: SearchDimension[];
  objective: { metric: string; direction: 'maximize' | 'minimize' };
  limits?: { wall_time_s?: number; memory_mb?: number; cpus?: number };
  network?: boolean;
  sampler?: StudyCreate['sampler'];
  pruner?: StudyCreate['pruner'];
  n_trials: number;
  timeout_seconds?: number | null;
  parallelism?: number;
  seed?: number;
};

/** The bits of a code archive the form shows (GET /api/v1/code-archives/). */
export type CodeArchiveChoice = { id: number; name: string; filename: string; entry_point: string; files: { path: string }[] };

export const HYPERPARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const METRIC_NAME = /^[A-Za-z_][A-Za-z0-9_./-]{0,99}$/;

export function createCustomStudy(body: CustomStudyCreate): Promise<Study> {
  // TODO(lead): generated type — the request body is StudyStartRequest (StudyCreate | CustomStudyCreate)
  return unwrap(api.POST('/api/v1/studies/', { body: body as unknown as StudyCreate }));
}

export async function listCodeArchives(projectId: number): Promise<Paginated<CodeArchiveChoice>> {
  // TODO(lead): generated type — api.GET('/api/v1/code-archives/') once `make api-client` has run
  const get = api.GET as unknown as (path: string, init: unknown) => Promise<{ data?: Paginated<CodeArchiveChoice>; error?: unknown; response: Response }>;
  return unwrap(get('/api/v1/code-archives/', { params: { query: { project: projectId, page_size: 100 } } }));
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
