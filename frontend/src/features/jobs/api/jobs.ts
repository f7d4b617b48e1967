import { api, unwrap } from '@/api/client';
import type { components, paths } from '@/api/schema';
import { translateDynamic } from '@/i18n';

type JobPage = paths['/api/v1/jobs/']['get']['responses'][200]['content']['application/json'];
type JobEventPage = paths['/api/v1/jobs/{id}/events/']['get']['responses'][200]['content']['application/json'];
export type Job = JobPage['results'][number];
export type JobEvent = JobEventPage['results'][number];
export type JobKind = paths['/api/v1/job-kinds/']['get']['responses'][200]['content']['application/json'][number];
export type JobCreateBody = NonNullable<paths['/api/v1/jobs/']['post']['requestBody']>['content']['application/json'];
export type JobStatus = components['schemas']['JobStatusEnum'];
/** Why a queued job waits (null unless it is queued). */
export type QueueState = components['schemas']['QueueState'];
/** A progress report (`job.progress`, and a progress event's `data`). */
export type ProgressEvent = components['schemas']['ProgressEvent'];

export const STATUS_OPTIONS = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const satisfies readonly JobStatus[];

/** A job kind's title and description in the UI's language (the server's English for a kind the catalog lacks). */
export function kindText(name: string, kind?: Pick<JobKind, 'title' | 'description'>): { title: string; description: string } {
  const key = `jobs:kinds.${name.replace(/\./g, '_')}`;
  return {
    title: translateDynamic(`${key}.title`, kind?.title || name),
    description: translateDynamic(`${key}.description`, kind?.description ?? ''),
  };
}

/** Queued and running jobs still change; the UI polls while it shows one. */
export function isActive(status: string | null | undefined): boolean {
  return status === 'queued' || status === 'running';
}

/** The caller may cancel or retry the job: not a viewer of its workspace (unknown role: the server decides). */
export function canChange(job: { my_role?: string | null }): boolean {
  return job.my_role !== 'viewer';
}

/** How far a report says the job is, 0..1: its `fraction`, else `step` of `total`; null when it does not say. */
export function progressFraction(progress: ProgressEvent): number | null {
  const fraction = progress.fraction ?? (progress.step !== undefined && progress.total ? progress.step / progress.total : null);
  return fraction === null ? null : Math.min(1, Math.max(0, fraction));
}

/** How far the job is, 0..100, with finished jobs at their final state. */
export function progressPercent(job: Pick<Job, 'status' | 'progress'>): number {
  if (job.status === 'succeeded') return 100;
  const fraction = progressFraction(job.progress);
  return fraction === null ? 0 : Math.round(fraction * 1000) / 10;
}

export type JobFilters = {
  workspace?: number | null;
  project?: number | null;
  status?: JobStatus | null;
  kind?: string | null;
  page?: number;
};

export const JOBS_PAGE_SIZE = 20;

export const jobKeys = {
  all: ['jobs'] as const,
  lists: () => [...jobKeys.all, 'list'] as const,
  list: (filters: JobFilters) => [...jobKeys.lists(), filters] as const,
  detail: (id: number) => [...jobKeys.all, 'detail', id] as const,
  events: (id: number) => [...jobKeys.all, 'detail', id, 'events'] as const,
  logs: (id: number) => [...jobKeys.all, 'detail', id, 'logs'] as const,
  kinds: ['job-kinds'] as const,
};

export function listJobs(filters: JobFilters) {
  return unwrap(
    api.GET('/api/v1/jobs/', {
      params: {
        query: {
          workspace: filters.workspace ?? undefined,
          project: filters.project ?? undefined,
          status: filters.status ?? undefined,
          kind: filters.kind ?? undefined,
          page: filters.page && filters.page > 1 ? filters.page : undefined,
          page_size: JOBS_PAGE_SIZE,
        },
      },
    }),
  );
}

export function getJob(id: number) {
  return unwrap(api.GET('/api/v1/jobs/{id}/', { params: { path: { id } } }));
}

export function createJob(body: JobCreateBody) {
  return unwrap(api.POST('/api/v1/jobs/', { body }));
}

export function cancelJob(id: number) {
  return unwrap(api.POST('/api/v1/jobs/{id}/cancel/', { params: { path: { id } } }));
}

/** Queue a failed or cancelled job again; a training resumes from its last checkpoint. The key makes a
 * repeated click (or a retried request) queue it once. */
export function retryJob(id: number) {
  return unwrap(
    api.POST('/api/v1/jobs/{id}/retry/', {
      params: { path: { id } },
      headers: { 'Idempotency-Key': `retry-${id}-${crypto.randomUUID()}` },
    }),
  );
}

const EVENTS_PAGE_SIZE = 500;
const EVENTS_MAX_PAGES = 10;

/** A job's events in order, following pages up to a cap (a job's series is small). */
export async function listJobEvents(id: number): Promise<JobEvent[]> {
  const events: JobEvent[] = [];
  for (let page = 1; page <= EVENTS_MAX_PAGES; page += 1) {
    const data = await unwrap(
      api.GET('/api/v1/jobs/{id}/events/', {
        params: { path: { id }, query: { page: page > 1 ? page : undefined, page_size: EVENTS_PAGE_SIZE } },
      }),
    );
    events.push(...data.results);
    if (!data.next) break;
  }
  return events;
}

export function listJobKinds() {
  return unwrap(api.GET('/api/v1/job-kinds/'));
}
