import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

// `adapt` and `processes` have server-side defaults (true, 1), which the generated type makes required:
// here they are optional.
export type TrainingJobBody = Omit<components['schemas']['TrainingJobCreateRequest'], 'adapt' | 'processes'> & {
  adapt?: boolean;
  processes?: number;
};
export type Job = components['schemas']['Job'];
export type JobEvent = components['schemas']['JobEvent'];
export type ProgressEvent = components['schemas']['ProgressEvent'];

export function startTraining(body: TrainingJobBody) {
  // sent as given: without `adapt` the server fits the preset (its default)
  return unwrap(api.POST('/api/v1/training-jobs/', { body: body as components['schemas']['TrainingJobCreateRequest'] }));
}

const PAGE_SIZE = 500;
const MAX_PAGES = 40;

/** Progress events with seq > `after` (all of them without it), following pages. */
export async function listProgressEvents(jobId: number, after: number | null): Promise<JobEvent[]> {
  const events: JobEvent[] = [];
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const data = await unwrap(
      api.GET('/api/v1/jobs/{id}/events/', {
        params: {
          path: { id: jobId },
          query: { type: 'progress', after: after ?? undefined, page: page > 1 ? page : undefined, page_size: PAGE_SIZE },
        },
      }),
    );
    events.push(...data.results);
    if (!data.next) break;
  }
  return events;
}

/** Events merged by seq, in order (a poll may overlap the previous one). */
export function mergeEvents(previous: JobEvent[], fresh: JobEvent[]): JobEvent[] {
  if (fresh.length === 0) return previous;
  const last = previous.length ? previous[previous.length - 1].seq : -Infinity;
  const newer = fresh.filter((event) => event.seq > last);
  return newer.length ? [...previous, ...newer] : previous;
}

/** The model version a finished training job recorded (its `result.model_version`). */
export function modelVersionOf(job: Pick<Job, 'result'>): { id: number; name: string } | null {
  const result = job.result;
  if (result?.kind !== 'training_job_result') return null;
  return { id: result.model_version, name: result.name };
}
