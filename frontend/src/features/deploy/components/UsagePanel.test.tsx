import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { UsagePanel } from './UsagePanel';

const now = () => new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();

describe('UsagePanel', () => {
  it('shows totals and charts for the chosen window and refetches when the window changes', async () => {
    const server = fakeApi({
      'GET /api/v1/deployments/7/usage/': (call: RecordedCall) =>
        json(
          call.search.get('window') === '24h'
            ? { window: '24h', bucket_seconds: 3600, totals: { calls: 40, errors: 4, p50_ms: 12.3, p95_ms: 30, p99_ms: 55 }, series: [] }
            : {
                window: '1h',
                bucket_seconds: 60,
                totals: { calls: 3, errors: 1, p50_ms: 0.42, p95_ms: 0.9, p99_ms: 1.5 },
                series: [{ t: now(), calls: 3, errors: 1, p50_ms: 0.42, p95_ms: 0.9, p99_ms: 1.5 }],
              },
        ),
    });
    const user = userEvent.setup();
    renderWithApp(<UsagePanel deploymentId={7} />);
    expect(await screen.findByTestId('usage-calls')).toHaveTextContent('3');
    expect(screen.getByTestId('usage-errors')).toHaveTextContent('1');
    expect(screen.getByTestId('usage-error-rate')).toHaveTextContent('33.3%');
    expect(screen.getByTestId('usage-p50')).toHaveTextContent('0.42 ms');
    expect(screen.getByTestId('usage-p99')).toHaveTextContent('1.50 ms');
    expect(screen.getByTestId('usage-calls-chart')).toBeInTheDocument();
    expect(screen.getByTestId('usage-latency-chart')).toBeInTheDocument();
    expect(server.calls[0].search.get('window')).toBe('1h');

    await user.click(screen.getByText('Last 24 hours'));
    await waitFor(() => expect(screen.getByTestId('usage-calls')).toHaveTextContent('40'));
    expect(screen.getByTestId('usage-p95')).toHaveTextContent('30 ms');
    expect(server.calls.some((call) => call.search.get('window') === '24h')).toBe(true);
  });

  it('says so when nothing was called yet', async () => {
    fakeApi({
      'GET /api/v1/deployments/7/usage/': json({ window: '1h', bucket_seconds: 60, totals: { calls: 0, errors: 0, p50_ms: null, p95_ms: null, p99_ms: null }, series: [] }),
    });
    renderWithApp(<UsagePanel deploymentId={7} />);
    expect(await screen.findByTestId('usage-empty')).toBeInTheDocument();
    expect(screen.getByTestId('usage-p50')).toHaveTextContent('—');
    expect(screen.getByTestId('usage-error-rate')).toHaveTextContent('—');
  });
});
