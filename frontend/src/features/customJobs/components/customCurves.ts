/** One metric's points: (step, value), in step order, the latest report winning for a step reported again. */
export type MetricSeries = { name: string; points: { step: number; value: number }[] };

type EventLike = { seq: number; data: { kind?: string; step?: number; custom_metrics?: Record<string, number> } };

/**
 * The curves of a custom job: each progress event's `custom_metrics` at its `step` (events without a
 * step count in arrival order). Metric names keep the order they first appeared in.
 */
export function toCustomCurves(events: readonly EventLike[]): MetricSeries[] {
  const byName = new Map<string, Map<number, number>>();
  let implicit = 0;
  for (const { data } of events) {
    if (data.kind !== 'progress' || !data.custom_metrics) continue;
    const step = data.step ?? implicit;
    implicit = step + 1;
    for (const [name, value] of Object.entries(data.custom_metrics)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) continue;
      if (!byName.has(name)) byName.set(name, new Map());
      byName.get(name)?.set(step, value);
    }
  }
  return [...byName.entries()].map(([name, points]) => ({
    name,
    points: [...points.entries()].sort((a, b) => a[0] - b[0]).map(([step, value]) => ({ step, value })),
  }));
}
