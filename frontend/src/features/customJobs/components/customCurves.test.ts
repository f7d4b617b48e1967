import { describe, expect, it } from 'vitest';
import { toCustomCurves } from './customCurves';

describe('toCustomCurves', () => {
  it('draws each reported metric by step, the latest report of a step winning', () => {
    const curves = toCustomCurves([
      { seq: 1, data: { kind: 'status' } },
      { seq: 2, data: { kind: 'progress', step: 1, custom_metrics: { loss: 0.9, acc: 0.5 } } },
      { seq: 3, data: { kind: 'progress', step: 2, custom_metrics: { loss: 0.5 } } },
      { seq: 4, data: { kind: 'progress' } }, // a status report: no metrics
      { seq: 5, data: { kind: 'progress', step: 1, custom_metrics: { acc: 0.6 } } },
      { seq: 6, data: { kind: 'progress', step: 3, custom_metrics: { loss: 0.3, acc: 0.8 } } },
    ]);
    expect(curves).toEqual([
      { name: 'loss', points: [{ step: 1, value: 0.9 }, { step: 2, value: 0.5 }, { step: 3, value: 0.3 }] },
      { name: 'acc', points: [{ step: 1, value: 0.6 }, { step: 3, value: 0.8 }] },
    ]);
  });

  it('numbers reports without a step in arrival order', () => {
    const curves = toCustomCurves([
      { seq: 1, data: { kind: 'progress', custom_metrics: { loss: 1 } } },
      { seq: 2, data: { kind: 'progress', custom_metrics: { loss: 0.5 } } },
    ]);
    expect(curves[0].points.map((point) => point.step)).toEqual([0, 1]);
  });
});
