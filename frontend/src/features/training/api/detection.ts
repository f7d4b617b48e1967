/**
 * The object-detection report (workers/contracts/annotations.py DetectionReport, from the generated
 * client) and its comparison, computed here from two reports as the server's DetectionComparison.
 */

import type { components } from '@/api/schema';
import { formatPercent } from './modelVersions';

export type DetectionReport = components['schemas']['DetectionReport'];
export type BadCase = components['schemas']['BadCase'];
export type ClassAP = components['schemas']['ClassAP'];

export type ClassAPDelta = { label: string; a: number; b: number; delta: number };

export type DetectionComparison = {
  kind: 'detection_comparison';
  version: number;
  split: string;
  map: ClassAPDelta;
  map50: ClassAPDelta;
  per_class: ClassAPDelta[];
};

/** The report as a detection report when its `kind` says it is one, else null. */
export function asDetectionReport(report: unknown): DetectionReport | null {
  return report !== null && typeof report === 'object' && (report as { kind?: unknown }).kind === 'detection_report'
    ? (report as DetectionReport)
    : null;
}

export function isDetection(version: { template?: string | null } | null | undefined): boolean {
  return version?.template === 'object_detection';
}

/** An AP of the report: -1 marks a class without ground truth in the split (no AP to show). */
export function hasAP(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** An AP as a percentage, or a dash for a class with no ground truth in the split (AP -1). */
export function formatAP(value: number | null | undefined): string {
  return hasAP(value) ? formatPercent(value) : '—';
}

/**
 * Two detection reports side by side (b minus a), as the server's DetectionComparison: mAP, mAP@.5
 * and each class's AP@[.5:.95], classes in A's order then B's new ones. A class without ground truth
 * in a split has no AP there, so no delta (NaN).
 */
export function compareDetectionReports(a: DetectionReport, b: DetectionReport): DetectionComparison {
  const pair = (label: string, x: number, y: number): ClassAPDelta => ({ label, a: x, b: y, delta: hasAP(x) && hasAP(y) ? y - x : Number.NaN });
  const apOf = (report: DetectionReport, label: string) => report.per_class.find((row) => row.label === label)?.ap ?? -1;
  const labels = [...a.per_class.map((row) => row.label), ...b.per_class.map((row) => row.label).filter((label) => !a.per_class.some((row) => row.label === label))];
  return {
    kind: 'detection_comparison',
    version: 1,
    split: a.split === b.split ? a.split : `${a.split}/${b.split}`,
    map: pair('map', a.map, b.map),
    map50: pair('map50', a.map50, b.map50),
    per_class: labels.map((label) => pair(label, apOf(a, label), apOf(b, label))),
  };
}

/**
 * Precision-recall curves of the report's classes as chart rows: one row per recall point (COCO's
 * 101), a column per class with its precision there. Classes without ground truth have no curve.
 */
export function prCurveRows(report: DetectionReport): { rows: Record<string, number>[]; series: string[] } {
  const classes = report.per_class.filter((row) => row.ground_truth > 0 && row.pr_curve.recall.length > 0);
  const byRecall = new Map<number, Record<string, number>>();
  for (const item of classes) {
    item.pr_curve.recall.forEach((recall, index) => {
      const precision = item.pr_curve.precision[index];
      if (typeof precision !== 'number' || precision < 0) return;
      const key = Math.round(recall * 1e4) / 1e4;
      const row = byRecall.get(key) ?? { recall: key };
      row[item.label] = precision;
      byRecall.set(key, row);
    });
  }
  const rows = [...byRecall.values()].sort((x, y) => x.recall - y.recall);
  return { rows, series: classes.map((item) => item.label) };
}

/**
 * Where a bad case's image opens: the dataset's box labeler on that sample; with `ids`, its
 * previous/next step through those images only (the report's bad cases).
 */
export function annotateUrl(datasetId: number, sampleId: number, ids: readonly number[] = []): string {
  return `/datasets/${datasetId}/annotate/${sampleId}${ids.length ? `?ids=${ids.join(',')}` : ''}`;
}

export function sampleImageUrl(datasetId: number, sampleId: number): string {
  return `/api/v1/datasets/${datasetId}/samples/${sampleId}/image/`;
}
