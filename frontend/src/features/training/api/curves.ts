import type { JobEvent } from './trainingJobs';

/** A point of the live curves: per optimizer step, or at the end of an epoch (with validation). */
export type CurvePoint = {
  seq: number;
  step: number;
  epoch: number;
  loss: number | null;
  train_acc: number | null;
  val_loss: number | null;
  val_acc: number | null;
  lr: number | null;
  samples_per_s: number | null;
};

export type Curves = { steps: CurvePoint[]; epochs: CurvePoint[] };

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * Splits a training job's progress events into step points and epoch-end points. Epoch ends are
 * the milestone reports that carry validation (`val_loss`/`val_acc`/`best_epoch` keys); other
 * reports with a `loss` are steps; export and evaluation reports carry no loss and are skipped.
 */
export function toCurves(events: JobEvent[]): Curves {
  const steps: CurvePoint[] = [];
  const epochs: CurvePoint[] = [];
  for (const event of events) {
    if (event.type !== 'progress' || !event.data || typeof event.data !== 'object') continue;
    const data = event.data as Record<string, unknown>;
    const step = num(data.step);
    const epoch = num(data.epoch);
    if (step === null || epoch === null) continue;
    const point: CurvePoint = {
      seq: event.seq,
      step,
      epoch,
      loss: num(data.loss),
      train_acc: num(data.train_acc),
      val_loss: num(data.val_loss),
      val_acc: num(data.val_acc),
      lr: num(data.lr),
      samples_per_s: num(data.samples_per_s),
    };
    const epochEnd = 'val_loss' in data || 'val_acc' in data || 'best_epoch' in data;
    if (epochEnd) epochs.push(point);
    else if (point.loss !== null) steps.push(point);
  }
  return { steps, epochs };
}

/** Events merged by seq, in order (a poll may overlap the previous one). */
export function mergeEvents(previous: JobEvent[], fresh: JobEvent[]): JobEvent[] {
  if (fresh.length === 0) return previous;
  const last = previous.length ? previous[previous.length - 1].seq : -Infinity;
  const newer = fresh.filter((event) => event.seq > last);
  return newer.length ? [...previous, ...newer] : previous;
}

export type TrainingStatus = {
  epoch: number | null;
  epochs: number | null;
  step: number | null;
  steps: number | null;
  etaSeconds: number | null;
  samplesPerSecond: number | null;
  fraction: number | null;
  message: string;
  evaluating: { done: number; total: number } | null;
};

/** The latest progress report of a training job (`job.progress`), read for the stat cards. */
export function readTrainingStatus(progress: unknown): TrainingStatus {
  const data = progress && typeof progress === 'object' ? (progress as Record<string, unknown>) : {};
  const evaluated = num(data.evaluated);
  const total = num(data.total);
  return {
    epoch: num(data.epoch),
    epochs: num(data.epochs),
    step: num(data.step),
    steps: num(data.steps),
    etaSeconds: num(data.eta_s),
    samplesPerSecond: num(data.samples_per_s),
    fraction: num(data.fraction),
    message: typeof data.message === 'string' ? data.message : '',
    evaluating: evaluated !== null && total !== null ? { done: evaluated, total } : null,
  };
}

export function formatEta(seconds: number | null): string {
  if (seconds === null) return '—';
  const total = Math.max(0, Math.round(seconds));
  const minutes = Math.floor(total / 60);
  if (minutes === 0) return `${total}s`;
  const hours = Math.floor(minutes / 60);
  if (hours === 0) return `${minutes}m ${String(total % 60).padStart(2, '0')}s`;
  return `${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
}
