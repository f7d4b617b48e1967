import type { Job } from './jobs';

const ACTIVE = new Set(['queued', 'running']);

/** Queued and running jobs still change; the UI polls while it shows one. */
export function isActive(status: string | null | undefined): boolean {
  return !!status && ACTIVE.has(status);
}

export type JobProgress = {
  /** 0..1, or null when the job has not said how far it is. */
  fraction: number | null;
  step: number | null;
  total: number | null;
  message: string;
};

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function asNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Reads the free-form `progress` object (`{fraction?, step?, total?, message?}`) of a job or event. */
export function readProgress(progress: unknown): JobProgress {
  const record = asRecord(progress);
  const step = asNumber(record.step);
  const total = asNumber(record.total);
  let fraction = asNumber(record.fraction);
  if (fraction === null && step !== null && total) fraction = step / total;
  if (fraction !== null) fraction = Math.min(1, Math.max(0, fraction));
  return { fraction, step, total, message: typeof record.message === 'string' ? record.message : '' };
}

/** How far the job is, 0..100, with finished jobs at their final state. */
export function progressPercent(job: Pick<Job, 'status' | 'progress'>): number {
  if (job.status === 'succeeded') return 100;
  const { fraction } = readProgress(job.progress);
  return fraction === null ? 0 : Math.round(fraction * 1000) / 10;
}

export const STATUS_OPTIONS = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
