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

describe('UsagePanel by model version', () => {
  it('splits calls, errors, latency and the score distribution by the version that answered', async () => {
    const minute = (offset: number) => new Date(Math.floor(Date.now() / 60_000) * 60_000 - offset * 60_000).toISOString();
    fakeApi({
      'GET /api/v1/deployments/7/usage/': json({
        window: '1h',
        bucket_seconds: 60,
        totals: { calls: 100, errors: 3, p50_ms: 1.2, p95_ms: 4, p99_ms: 9 },
        series: [{ t: minute(1), calls: 100, errors: 3, p50_ms: 1.2, p95_ms: 4, p99_ms: 9 }],
        by_version: [
          {
            model_version: 12,
            model_version_name: 'V3',
            role: 'primary',
            calls: 90,
            errors: 1,
            latency_ms: { p50: 1.1, p95: 3.5, p99: 8 },
            scores: [
              { low: 0.5, high: 0.75, count: 20 },
              { low: 0.75, high: 1, count: 70 },
            ],
            series: [{ start: minute(1), calls: 90, errors: 1 }],
          },
          {
            model_version: 11,
            model_version_name: 'V2',
            role: 'canary',
            calls: 10,
            errors: 2,
            latency_ms: { p50: 2.5, p95: 6, p99: 12 },
            scores: [],
            series: [
              { start: minute(2), calls: 4, errors: 0 },
              { start: minute(1), calls: 6, errors: 2 },
            ],
          },
          { model_version: 9, model_version_name: 'V0', role: 'previous', calls: 0, errors: 0, latency_ms: { p50: null, p95: null, p99: null }, scores: [], series: [] },
        ],
      }),
    });
    renderWithApp(<UsagePanel deploymentId={7} />);
    const primary = await screen.findByTestId('usage-version-12');
    expect(primary).toHaveAttribute('data-calls', '90');
    expect(primary).toHaveTextContent('primary');
    expect(primary).toHaveTextContent('1.10 ms');
    const canary = screen.getByTestId('usage-version-11');
    expect(canary).toHaveAttribute('data-errors', '2');
    expect(canary).toHaveTextContent('canary');
    expect(canary).toHaveTextContent('20.0%');
    expect(canary).toHaveTextContent('12 ms');
    expect(screen.getByTestId('usage-version-9')).toHaveTextContent('previous');
    expect(screen.getByTestId('usage-version-calls-chart')).toBeInTheDocument();
    expect(screen.getByTestId('usage-version-errors-chart')).toBeInTheDocument();
    expect(screen.getByTestId('usage-version-scores')).toHaveTextContent('Top score per version');
    expect(screen.getByTestId('usage-version-scores-11')).toHaveTextContent('No answers in this window.');
    expect(screen.getByTestId('usage-version-scores-12')).not.toHaveTextContent('No answers in this window.');
  });

  it('names the value distribution of a regression model', async () => {
    fakeApi({
      'GET /api/v1/deployments/7/usage/': json({
        window: '1h',
        bucket_seconds: 60,
        totals: { calls: 2, errors: 0, p50_ms: 1, p95_ms: 1, p99_ms: 1 },
        series: [],
        by_version: [
          { model_version: 12, model_version_name: 'V3', role: 'primary', calls: 2, errors: 0, latency_ms: { p50: 1, p95: 1, p99: 1 }, scores: [{ low: 10, high: 20, count: 2 }], series: [] },
        ],
      }),
    });
    renderWithApp(<UsagePanel deploymentId={7} regression />);
    expect(await screen.findByTestId('usage-version-scores')).toHaveTextContent('Predicted values per version');
  });
});
