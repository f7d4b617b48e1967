import { describe, expect, it } from 'vitest';
import { sliderPositions, suggestedTimeSeriesMapping, timeline, timestampMillis, timeSeriesMappingProblem } from './timeSeriesView';

describe('the series chart time axis', () => {
  it('reads dates and zone-less date-times as UTC (the data clock), and zoned ones as written', () => {
    expect(timestampMillis('2026-01-02')).toBe(Date.UTC(2026, 0, 2));
    expect(timestampMillis('2026-01-02T06:30:00')).toBe(Date.UTC(2026, 0, 2, 6, 30));
    expect(timestampMillis('2026-01-02T06:30:00+02:00')).toBe(Date.UTC(2026, 0, 2, 4, 30));
  });

  it('merges the series timestamps in time order, once each', () => {
    const a = { id: 'a', timestamps: ['2026-01-03', '2026-01-01'], values: [1, 2], total_points: 2, step: 1 };
    const b = { id: 'b', timestamps: ['2026-01-02', '2026-01-03'], values: [1, 2], total_points: 2, step: 1 };
    expect(timeline([a, b])).toEqual(['2026-01-01', '2026-01-02', '2026-01-03']);
  });

  it('places a window of timestamps on the slider: first point at or after the start, last at or before the end', () => {
    const days = ['2026-01-01', '2026-01-03', '2026-01-05', '2026-01-07'];
    expect(sliderPositions(days, null)).toEqual([0, 3]);
    expect(sliderPositions(days, { start: '2026-01-03', end: '2026-01-05' })).toEqual([1, 2]);
    expect(sliderPositions(days, { start: '2026-01-02', end: '2026-01-06' })).toEqual([1, 2]);
    expect(sliderPositions(days, { start: '2025-12-01', end: '2026-02-01' })).toEqual([0, 3]);
    expect(sliderPositions([], { start: '2026-01-02', end: '2026-01-06' })).toEqual([0, 0]);
  });
});

describe('the forecasting import mapping', () => {
  const columns = [
    { name: 'when', type: 'datetime' },
    { name: 'store', type: 'categorical' },
    { name: 'sales', type: 'numeric' },
  ];

  it('takes the server suggestion, or the first date-time column for the timestamp', () => {
    expect(suggestedTimeSeriesMapping(columns, { series_column: 'store', target_columns: ['sales', 'gone'] }, {})).toEqual({
      timestamp_column: 'when', series_column: 'store', target_columns: ['sales'], known_covariates: [], static_covariates: [], frequency: '', fill_rule: 'interpolate',
    });
  });

  it('keeps what the user chose when the file is read again (another delimiter, sheet)', () => {
    const chosen = { timestamp_column: 'when', series_column: '', target_columns: ['sales'], frequency: 'W', fill_rule: 'zero' as const };
    expect(suggestedTimeSeriesMapping(columns, { series_column: 'store', target_columns: [] }, chosen)).toMatchObject({
      series_column: '', target_columns: ['sales'], frequency: 'W', fill_rule: 'zero',
    });
  });

  it('needs a timestamp and a target', () => {
    expect(timeSeriesMappingProblem({})).toBe('pickTimestamp');
    expect(timeSeriesMappingProblem({ timestamp_column: 'when', target_columns: [] })).toBe('pickTarget');
    expect(timeSeriesMappingProblem({ timestamp_column: 'when', target_columns: ['sales'] })).toBeNull();
  });
});
