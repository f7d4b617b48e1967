/**
 * The Mantine colour of every status badge, by the kind of thing whose status it is. One map, so a
 * status reads the same colour on every page (a job's "failed" is the package build's and the import's).
 */
export const STATUS_COLORS = {
  /** Jobs, and what runs as one: dataset imports, package builds. */
  job: { queued: 'gray', running: 'blue', succeeded: 'teal', failed: 'red', cancelled: 'orange' },
  study: { running: 'blue', paused: 'yellow', stopped: 'red', completed: 'green' },
  trial: { running: 'blue', complete: 'green', pruned: 'gray', failed: 'red' },
  deployment: { active: 'teal', stopped: 'gray' },
  /** Personal API tokens and deployment keys. */
  key: { active: 'teal', revoked: 'red', expired: 'gray' },
  backbone: { pending: 'blue', valid: 'teal', invalid: 'red' },
} as const satisfies Record<string, Record<string, string>>;

export type StatusKind = keyof typeof STATUS_COLORS;

/** The badge colour of `status` for a `kind`; gray for a status the map does not know. */
export function statusColor(kind: StatusKind, status: string): string {
  const colors: Readonly<Record<string, string>> = STATUS_COLORS[kind];
  return colors[status] ?? 'gray';
}

/** A progress bar's colour: the outcome's once a job has finished, blue while it is queued or running. */
export function progressColor(status: string): string {
  return status === 'succeeded' || status === 'failed' || status === 'cancelled' ? statusColor('job', status) : 'blue';
}
