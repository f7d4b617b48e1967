import { describe, expect, it } from 'vitest';
import { progressColor, STATUS_COLORS, statusColor } from './statusColors';

describe('statusColor', () => {
  it('gives each kind its own colours where a status means different things', () => {
    expect(statusColor('study', 'stopped')).toBe('red');
    expect(statusColor('deployment', 'stopped')).toBe('gray');
    expect(statusColor('job', 'succeeded')).toBe('teal');
    expect(statusColor('trial', 'complete')).toBe('green');
    expect(statusColor('key', 'revoked')).toBe('red');
    expect(statusColor('backbone', 'pending')).toBe('blue');
  });

  it('falls back to gray for a status it does not know', () => {
    expect(statusColor('job', 'exploded')).toBe('gray');
  });

  it('colours every job status', () => {
    for (const status of ['queued', 'running', 'succeeded', 'failed', 'cancelled']) expect(STATUS_COLORS.job).toHaveProperty(status);
  });
});

describe('progressColor', () => {
  it('is blue until the job has finished, then the outcome colour', () => {
    expect(progressColor('queued')).toBe('blue');
    expect(progressColor('running')).toBe('blue');
    expect(progressColor('succeeded')).toBe('teal');
    expect(progressColor('failed')).toBe('red');
    expect(progressColor('cancelled')).toBe('orange');
  });
});
