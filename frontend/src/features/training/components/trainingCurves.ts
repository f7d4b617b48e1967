import { formatSeconds } from '@/lib/datetime';
import type { JobEvent } from '../api/trainingJobs';

/** A point of the live curves: per optimizer step, or at the end of an epoch (with validation). */
export type CurvePoint = {
  seq: number;
  step: number;
  epoch: number;
  loss: number | null;
  train_acc: number | null;
  val_loss: number | null;
  val_acc: number | null;
  /** A detector's validation mAP@.5 (instead of accuracy). */
  val_map50: number | null;
  lr: number | null;
  samples_per_s: number | null;
};

/**
 * A training job's progress events as step points and epoch-end points. Epoch ends are the reports
 * that carry validation (`val_loss`, `val_acc` or a detector's `val_map50`, `best_epoch`); other reports with a `loss` are
 * steps; reports without a step (export, evaluation) are not points.
 */
export function toCurves(events: JobEvent[]): { steps: CurvePoint[]; epochs: CurvePoint[] } {
  const steps: CurvePoint[] = [];
  const epochs: CurvePoint[] = [];
  for (const { seq, data } of events) {
    if (data.kind !== 'progress' || data.step === undefined || data.epoch === undefined) continue;
    const point: CurvePoint = {
      seq,
      step: data.step,
      epoch: data.epoch,
      loss: data.loss ?? null,
      train_acc: data.train_acc ?? null,
      val_loss: data.val_loss ?? null,
      val_acc: data.val_acc ?? null,
      val_map50: data.val_map50 ?? null,
      lr: data.lr ?? null,
      samples_per_s: data.samples_per_s ?? null,
    };
    if (data.val_loss !== undefined || data.val_acc !== undefined || data.val_map50 !== undefined || data.best_epoch !== undefined) {
      // a resumed attempt sends its last finished epoch's report again: one point per epoch, the latest
      const earlier = epochs.findIndex((e) => e.epoch === point.epoch);
      if (earlier >= 0) epochs.splice(earlier, 1);
      epochs.push(point);
    } else if (point.loss !== null) steps.push(point);
  }
  return { steps, epochs };
}

/** Seconds left as "1m 05s" in the UI's language; "—" when the job has not said. */
export function formatEta(seconds: number | undefined): string {
  if (seconds === undefined) return '—';
  return formatSeconds(seconds);
}
