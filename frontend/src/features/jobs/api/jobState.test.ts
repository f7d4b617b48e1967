import { describe, expect, it } from 'vitest';
import { isActive, progressPercent, readProgress } from './jobState';

describe('job state helpers', () => {
  it('reads fraction directly, or step/total, clamped to 0..1', () => {
    expect(readProgress({ fraction: 0.25, message: 'warming up' })).toEqual({ fraction: 0.25, step: null, total: null, message: 'warming up' });
    expect(readProgress({ step: 3, total: 4 }).fraction).toBe(0.75);
    expect(readProgress({ fraction: 7 }).fraction).toBe(1);
    expect(readProgress(null).fraction).toBeNull();
    expect(readProgress('garbage').fraction).toBeNull();
  });

  it('puts a succeeded job at 100% whatever its last report said', () => {
    expect(progressPercent({ status: 'succeeded', progress: {} })).toBe(100);
    expect(progressPercent({ status: 'running', progress: { fraction: 0.333 } })).toBe(33.3);
    expect(progressPercent({ status: 'queued', progress: {} })).toBe(0);
  });

  it('treats queued and running as active', () => {
    expect(['queued', 'running', 'succeeded', 'failed', 'cancelled'].map(isActive)).toEqual([true, true, false, false, false]);
  });
});
