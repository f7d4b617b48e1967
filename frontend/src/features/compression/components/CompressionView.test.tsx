import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { summarize } from '../api/browserLatency';
import { COMPRESSION, job, REPORT, VERSIONS } from './compressionFixtures';
import { CompressionView } from './CompressionView';

// The browser timing itself runs onnxruntime-web's WebAssembly, which jsdom cannot: the e2e test
// (tests/e2e/test_compression.py) runs it in Chromium; here it is replaced to test what the page does with it.
vi.mock('../api/browserLatency', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../api/browserLatency')>();
  return {
    ...actual,
    measureInBrowser: vi.fn(async (modelVersion: number) => {
      if (modelVersion === 13) throw new Error('wasm exploded');
      return { median_ms: modelVersion / 10, p90_ms: modelVersion / 5, runs: 20 };
    }),
  };
});

describe('CompressionView', () => {
  it('shows the job progress while it runs', async () => {
    fakeApi({
      'GET /api/v1/compressions/7/': { ...COMPRESSION, report: null },
      'GET /api/v1/jobs/40/': job('running', { stage: 'variant', step: 1, total: 3, message: 'int8: calibrating' }),
      'GET /api/v1/model-versions/': page(VERSIONS),
    });
    renderWithApp(<CompressionView compressionId={7} />);
    const view = await screen.findByTestId('compression-view');
    await waitFor(() => expect(view).toHaveAttribute('data-status', 'running'));
    expect(screen.getByTestId('job-progress-40')).toBeInTheDocument();
    expect(screen.getByText(/Compressing: each variant/)).toBeInTheDocument();
    expect(screen.queryByTestId('compression-table')).not.toBeInTheDocument();
  });

  it('keeps reading the compression until its report is in, even when the job is seen finished first', async () => {
    let reads = 0;
    fakeApi({
      'GET /api/v1/compressions/7/': () => {
        reads += 1;
        return json(reads < 3 ? { ...COMPRESSION, report: null, status: 'running' } : { ...COMPRESSION, status: 'succeeded' });
      },
      'GET /api/v1/jobs/40/': job('succeeded'),
      'GET /api/v1/model-versions/': page(VERSIONS),
    });
    renderWithApp(<CompressionView compressionId={7} />);
    expect(await screen.findByTestId('compression-table', {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(reads).toBeGreaterThanOrEqual(3);
  });

  it('shows the report: parent first, sizes against it, metric drops, links, skipped recipes and the chart', async () => {
    fakeApi({
      'GET /api/v1/compressions/7/': { ...COMPRESSION, report: { ...REPORT, browser_latency: [{ model_version: 12, median_ms: 3.25, p90_ms: 4, runs: 20, user_agent: 'x', backend: 'wasm' }] } },
      'GET /api/v1/jobs/40/': job('succeeded'),
      'GET /api/v1/model-versions/': page(VERSIONS),
    });
    renderWithApp(<CompressionView compressionId={7} />);
    const table = await screen.findByTestId('compression-table');
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(4);
    expect(rows[1]).toHaveAttribute('data-testid', 'compression-row-parent');
    await waitFor(() => expect(within(rows[1]).getByRole('link', { name: 'V1' })).toHaveAttribute('href', '/model-versions/11'));
    const int8 = screen.getByTestId('compression-row-int8');
    expect(within(int8).getByText('4.0×')).toBeInTheDocument();
    expect(within(int8).getByText('−0.5 pts')).toBeInTheDocument();
    expect(within(int8).getByText('89.5%')).toBeInTheDocument();
    expect(within(int8).getByText('static int8 kept the accuracy')).toBeInTheDocument();
    expect(screen.getByTestId('compression-link-pruned-50-int8')).toHaveAttribute('href', '/model-versions/13');
    expect(within(screen.getByTestId('compression-row-pruned-50-int8')).getByText(/prune to 50% FLOPs \+ int8 \(auto\) \+ 2 fine-tune epochs/)).toBeInTheDocument();
    // worker latency and the target's (edge-arm-slow: 4x)
    expect(within(int8).getByText('1 ms')).toBeInTheDocument();
    expect(within(int8).getByText('4 ms')).toBeInTheDocument();
    expect(screen.getByTestId('compression-browser-int8')).toHaveTextContent('3.25 ms');
    expect(screen.getByTestId('compression-skipped')).toHaveTextContent('distilled: no smaller student for this backbone');
    expect(screen.getByTestId('compression-chart')).toHaveAttribute('data-points', '3');
  });

  it('measures each model in the browser, shows and saves the times, and reports a failure per model', async () => {
    const server = fakeApi({
      'GET /api/v1/compressions/7/': COMPRESSION,
      'GET /api/v1/jobs/40/': job('succeeded'),
      'GET /api/v1/model-versions/': page(VERSIONS),
      'POST /api/v1/compressions/7/browser-latency/': json({}, 201),
    });
    renderWithApp(<CompressionView compressionId={7} />);
    await userEvent.click(await screen.findByTestId('compression-measure'));
    await waitFor(() => expect(screen.getByTestId('compression-browser-pruned-50-int8')).toHaveAttribute('data-state', 'error'));
    expect(screen.getByTestId('compression-browser-parent')).toHaveTextContent('1.1 ms');
    expect(screen.getByTestId('compression-browser-int8')).toHaveAttribute('data-median', '1.2');
    const posts = server.callsTo('POST', '/api/v1/compressions/7/browser-latency/');
    expect(posts.map((call) => (call.body as { model_version: number }).model_version)).toEqual([11, 12]);
    expect(posts[0].body).toMatchObject({ median_ms: 1.1, p90_ms: 2.2, runs: 20, backend: 'wasm' });
  });

  it('summarizes times as median and nearest-rank p90', () => {
    expect(summarize([5, 1, 3, 2, 4])).toEqual({ median_ms: 3, p90_ms: 5, runs: 5 });
    expect(summarize([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toEqual({ median_ms: 5.5, p90_ms: 9, runs: 10 });
  });
});
