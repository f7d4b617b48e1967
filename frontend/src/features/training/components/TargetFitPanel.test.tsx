import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithApp } from '@/test/render';
import { targetFitOf } from '../api/targetFit';
import { TargetFitPanel } from './TargetFitPanel';

const FIT = {
  kind: 'target_fit',
  version: 1,
  profile: 'edge-arm-slow',
  latency_budget_ms: 5,
  size_budget_bytes: null,
  chosen: { image_size: 48, width: 0.5, precision: 'int8', latency_ms: 4.1, size_bytes: 90_000, fits: true },
  candidates: [
    { image_size: 64, width: 1, precision: 'fp32', latency_ms: 12.5, size_bytes: 400_000, fits: false },
    { image_size: 48, width: 0.5, precision: 'int8', latency_ms: 4.1, size_bytes: 90_000, fits: true },
  ],
  reasons: ['64 px at width 1.0 takes 12.5 ms on edge-arm-slow, over the 5 ms budget.', 'Kept 48 px, width 0.5, int8: 4.1 ms.'],
};

describe('target fit on the job page', () => {
  it('reads the finished job (result.metrics.target, trained latency) before the running one (params.target_fit)', () => {
    expect(targetFitOf({ params: {}, result: null })).toBeNull();
    const running = targetFitOf({ params: { target_fit: FIT }, result: null });
    expect(running).toMatchObject({ profile: 'edge-arm-slow', choice: { image_size: 48, width: 0.5, precision: 'int8' }, latency_ms: 4.1, budget_ms: 5, candidates: 2 });
    const done = targetFitOf({ params: { target_fit: FIT }, result: { metrics: { target: { ...FIT, trained_latency_ms: 3.9 } } } });
    expect(done?.latency_ms).toBe(3.9);
  });

  it('shows what was chosen, the latency against the budget and the reasons', () => {
    renderWithApp(<TargetFitPanel fit={targetFitOf({ params: { target_fit: FIT } })!} />);
    const panel = screen.getByTestId('job-target-fit');
    expect(panel).toHaveTextContent('Fitted to the target edge-arm-slow');
    expect(panel).toHaveTextContent('image_size=48, width=0.5, precision=int8');
    expect(screen.getByTestId('job-target-latency')).toHaveTextContent('4.10 ms (budget 5.00 ms)');
    expect(panel).toHaveTextContent('over the 5 ms budget');
  });
});
