import { describe, expect, it } from 'vitest';
import { agreementRows, canariesChanged, canaryProblem, histogramRows, trafficOf, versionSeriesRows } from './traffic';

describe('traffic helpers', () => {
  it('fills every bucket of the window for each version, so each one draws a line', () => {
    const now = new Date('2026-12-01T10:30:20Z');
    const rows = versionSeriesRows(
      [
        { model_version: 1, series: [{ start: '2026-12-01T10:29:00Z', calls: 9, errors: 1 }] },
        {
          model_version: 2,
          series: [
            { start: '2026-12-01T10:28:00Z', calls: 2, errors: 0 },
            { start: '2026-12-01T10:29:00Z', calls: 1, errors: 1 },
          ],
        },
      ],
      'calls',
      '1h',
      60,
      now,
    );
    expect(rows).toHaveLength(60);
    expect(rows.at(-2)).toMatchObject({ v1: 9, v2: 1 });
    expect(rows.at(-3)).toMatchObject({ v1: 0, v2: 2 });
    expect(rows.at(-1)).toMatchObject({ v1: 0, v2: 0 });
    expect(rows.reduce((sum, row) => sum + Number(row.v2), 0)).toBe(3);
  });

  it('says what is wrong with a drafted split', () => {
    expect(canaryProblem([{ model_version: 2, weight: 10 }])).toBeNull();
    expect(canaryProblem([{ model_version: 2, weight: 0 }])).toBe('weight');
    expect(canaryProblem([{ model_version: 2, weight: 12.5 }])).toBe('weight');
    expect(canaryProblem([{ model_version: 2, weight: Number.NaN }])).toBe('weight');
    expect(canaryProblem([{ model_version: 2, weight: 60 }, { model_version: 3, weight: 40 }])).toBe('total');
    expect(canaryProblem([{ model_version: 2, weight: 10 }, { model_version: 2, weight: 20 }])).toBe('duplicate');
  });

  it('compares drafts with the split in any order, and reads a split-less deployment as its primary alone', () => {
    const traffic = [
      { model_version: 1, model_version_name: 'V1', role: 'primary' as const, weight: 70 },
      { model_version: 2, model_version_name: 'V2', role: 'canary' as const, weight: 20 },
      { model_version: 3, model_version_name: 'V3', role: 'canary' as const, weight: 10 },
    ];
    expect(canariesChanged(traffic, [{ model_version: 3, weight: 10 }, { model_version: 2, weight: 20 }])).toBe(false);
    expect(canariesChanged(traffic, [{ model_version: 2, weight: 20 }])).toBe(true);
    expect(trafficOf({ model_version: 4, model_version_name: 'V4', traffic: [] })).toEqual([
      { model_version: 4, model_version_name: 'V4', role: 'primary', weight: 100 },
    ]);
    expect(histogramRows([{ low: 0, high: 0.05, count: 3 }])).toEqual([{ range: '0–0.05', count: 3 }]);
  });
});

describe('agreement rows', () => {
  it('spans the window with gaps where nothing was compared', () => {
    const rows = agreementRows(
      [{ start: '2026-12-01T10:28:00Z', compared: 8, agreement: 0.875, mean_delta: 0.01234, errors: 0 }],
      '1h',
      60,
      new Date('2026-12-01T10:30:20Z'),
    );
    expect(rows).toHaveLength(60);
    expect(rows.at(-3)).toMatchObject({ agreement: 87.5, delta: 0.012 });
    expect(rows.at(-1)).toMatchObject({ agreement: null, delta: null });
  });
});
