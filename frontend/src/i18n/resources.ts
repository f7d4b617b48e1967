import type { ResourceKey } from 'i18next';
import enAdmin from './locales/en/admin.json';
import enApp from './locales/en/app.json';
import enAuth from './locales/en/auth.json';
import enAutoml from './locales/en/automl.json';
import enCustomJobs from './locales/en/customJobs.json';
import enBatch from './locales/en/batch.json';
import enCommon from './locales/en/common.json';
import enCompression from './locales/en/compression.json';
import enDatasets from './locales/en/datasets.json';
import enDeploy from './locales/en/deploy.json';
import enErrors from './locales/en/errors.json';
import enJobs from './locales/en/jobs.json';
import enLabeling from './locales/en/labeling.json';
import enNotebooks from './locales/en/notebooks.json';
import enProjects from './locales/en/projects.json';
import enTargets from './locales/en/targets.json';
import enTokens from './locales/en/tokens.json';
import enTraining from './locales/en/training.json';
import enWorkers from './locales/en/workers.json';
import enWorkspaces from './locales/en/workspaces.json';
import zhAdmin from './locales/zh-CN/admin.json';
import zhApp from './locales/zh-CN/app.json';
import zhAuth from './locales/zh-CN/auth.json';
import zhAutoml from './locales/zh-CN/automl.json';
import zhCustomJobs from './locales/zh-CN/customJobs.json';
import zhBatch from './locales/zh-CN/batch.json';
import zhCommon from './locales/zh-CN/common.json';
import zhCompression from './locales/zh-CN/compression.json';
import zhDatasets from './locales/zh-CN/datasets.json';
import zhDeploy from './locales/zh-CN/deploy.json';
import zhErrors from './locales/zh-CN/errors.json';
import zhJobs from './locales/zh-CN/jobs.json';
import zhLabeling from './locales/zh-CN/labeling.json';
import zhNotebooks from './locales/zh-CN/notebooks.json';
import zhProjects from './locales/zh-CN/projects.json';
import zhTargets from './locales/zh-CN/targets.json';
import zhTokens from './locales/zh-CN/tokens.json';
import zhTraining from './locales/zh-CN/training.json';
import zhWorkers from './locales/zh-CN/workers.json';
import zhWorkspaces from './locales/zh-CN/workspaces.json';

/** One namespace per feature; `catalogs.test.ts` checks each has the same keys in both languages. */
export const NAMESPACES = [
  'common',
  'app',
  'errors',
  'auth',
  'admin',
  'datasets',
  'training',
  'jobs',
  'automl',
  'deploy',
  'batch',
  'workspaces',
  'tokens',
  'projects',
  'workers',
  'labeling',
  'customJobs',
  'notebooks',
  'compression',
  'targets',
] as const;

export const en = {
  common: enCommon,
  app: enApp,
  errors: enErrors,
  auth: enAuth,
  admin: enAdmin,
  datasets: enDatasets,
  training: enTraining,
  jobs: enJobs,
  automl: enAutoml,
  deploy: enDeploy,
  batch: enBatch,
  workspaces: enWorkspaces,
  tokens: enTokens,
  projects: enProjects,
  workers: enWorkers,
  labeling: enLabeling,
  customJobs: enCustomJobs,
  notebooks: enNotebooks,
  compression: enCompression,
  targets: enTargets,
};

export const zhCN: Record<keyof typeof en, ResourceKey> = {
  common: zhCommon,
  app: zhApp,
  errors: zhErrors,
  auth: zhAuth,
  admin: zhAdmin,
  datasets: zhDatasets,
  training: zhTraining,
  jobs: zhJobs,
  automl: zhAutoml,
  deploy: zhDeploy,
  batch: zhBatch,
  workspaces: zhWorkspaces,
  tokens: zhTokens,
  projects: zhProjects,
  workers: zhWorkers,
  labeling: zhLabeling,
  customJobs: zhCustomJobs,
  notebooks: zhNotebooks,
  compression: zhCompression,
  targets: zhTargets,
};

export const resources = { en, 'zh-CN': zhCN } as const;
