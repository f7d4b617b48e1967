import { describe, expect, it } from 'vitest';
import { isActive, progressFraction, progressPercent, type ProgressEvent } from './jobs';

const event = (fields: Omit<ProgressEvent, 'kind' | 'version'> = {}): ProgressEvent => ({ kind: 'progress', version: 1, ...fields });

describe('job progress for display', () => {
  it('takes the fraction, else step of total, clamped to 0..1; null when the report does not say', () => {
    expect(progressFraction(event({ fraction: 0.25, message: 'warming up' }))).toBe(0.25);
    expect(progressFraction(event({ step: 3, total: 4 }))).toBe(0.75);
    expect(progressFraction(event({ fraction: 7 }))).toBe(1);
    expect(progressFraction(event({ step: 3 }))).toBeNull();
    expect(progressFraction(event())).toBeNull();
  });

  it('puts a succeeded job at 100% whatever its last report said', () => {
    expect(progressPercent({ status: 'succeeded', progress: event() })).toBe(100);
    expect(progressPercent({ status: 'running', progress: event({ fraction: 0.333 }) })).toBe(33.3);
    expect(progressPercent({ status: 'queued', progress: event() })).toBe(0);
  });

  it('treats queued and running as active', () => {
    expect(['queued', 'running', 'succeeded', 'failed', 'cancelled'].map(isActive)).toEqual([true, true, false, false, false]);
  });
});
