import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { BatchPrediction } from './api';
import { batchProgress } from './api';
import { BatchRunsPanel } from './BatchRunsPanel';
import { BATCH } from './fixtures';

describe('batchProgress', () => {
  it('reads the fraction, else done/total, and is full once succeeded', () => {
    expect(batchProgress({ status: 'running', progress: { fraction: 0.25, done: 90, total: 360, eta_s: 3 } })).toEqual({ percent: 25, eta: 3 });
    expect(batchProgress({ status: 'running', progress: { fraction: null, done: 180, total: 360, eta_s: null } })).toEqual({ percent: 50, eta: null });
    expect(batchProgress({ status: 'queued', progress: null })).toEqual({ percent: null, eta: null });
    expect(batchProgress({ status: 'succeeded', progress: null }).percent).toBe(100);
  });
});

describe('BatchRunsPanel', () => {
  it('shows a running batch live (progress, ETA, cancel) until it succeeds with metrics, errors and downloads', async () => {
    let polls = 0;
    const server = fakeApi({
      'GET /api/v1/batch-predictions/': () => {
        polls += 1;
        if (polls === 1) {
          return json(page([{ ...BATCH, status: 'running', summary: null, files: [], finished_at: null, progress: { fraction: 0.5, done: 180, total: 360, eta_s: 65 } }]));
        }
        return json(page([BATCH]));
      },
    });
    const user = userEvent.setup();
    renderWithApp(<BatchRunsPanel filters={{ model_version: 12 }} showVersion={false} />);
    expect(await screen.findByTestId('batch-status-21')).toHaveTextContent('running');
    expect(screen.getByTestId('batch-progress-21')).toHaveAttribute('data-value', '50');
    expect(screen.getByTestId('batch-row-21')).toHaveTextContent('180 of 360');
    expect(screen.getByTestId('batch-row-21')).toHaveTextContent('about 1m 05s left');
    expect(screen.getByTestId('batch-cancel-21')).toBeEnabled();
    expect(screen.getByTestId('batch-row-21')).toHaveTextContent('digits v2 · Test');
    expect(screen.getByTestId('batch-row-21')).toHaveTextContent('top-3');

    await waitFor(() => expect(screen.getByTestId('batch-status-21')).toHaveTextContent('succeeded'), { timeout: 4000 });
    expect(screen.queryByTestId('batch-progress-21')).not.toBeInTheDocument();
    expect(screen.getByTestId('batch-rows-21')).toHaveTextContent('360 rows, 358 predicted · 240.0 rows/s');
    expect(screen.getByTestId('batch-metrics-21')).toHaveTextContent('accuracy 0.9612');
    expect(screen.getByTestId('batch-metrics-21')).toHaveTextContent('macro F1 0.9500');
    expect(screen.getByTestId('batch-metrics-21')).not.toHaveTextContent('samples');
    expect(screen.getByTestId('batch-download-21-csv')).toHaveAttribute('href', '/api/v1/batch-predictions/21/download/?format=csv');
    expect(screen.getByTestId('batch-download-21-jsonl')).toHaveAttribute('href', '/api/v1/batch-predictions/21/download/?format=jsonl');
    expect(screen.queryByTestId('batch-download-21-parquet')).not.toBeInTheDocument();

    await user.click(screen.getByTestId('batch-errors-21'));
    expect(screen.getByTestId('batch-errors-21')).toHaveTextContent('2 inputs not predicted');
    expect(screen.getByTestId('batch-error-examples-21')).toHaveTextContent('broken.png: cannot identify image file');
    expect(server.calls[0].search.get('model_version')).toBe('12');
  });

  it('cancels a running batch', async () => {
    let status: BatchPrediction['status'] = 'running';
    const server = fakeApi({
      'GET /api/v1/batch-predictions/': () => json(page([{ ...BATCH, status, summary: null, files: [], progress: null }])),
      'POST /api/v1/batch-predictions/21/cancel/': () => {
        status = 'cancelled';
        return json({ ...BATCH, status, summary: null, files: [] });
      },
    });
    const user = userEvent.setup();
    renderWithApp(<BatchRunsPanel filters={{ project: 4 }} />);
    expect(await screen.findByTestId('batch-row-21')).toHaveTextContent('Reading the inputs');
    await user.click(screen.getByTestId('batch-cancel-21'));
    await waitFor(() => expect(screen.getByTestId('batch-status-21')).toHaveTextContent('cancelled'));
    expect(server.callsTo('POST', '/api/v1/batch-predictions/21/cancel/')).toHaveLength(1);
    expect(screen.getByTestId('batch-delete-21')).toBeInTheDocument();
  });

  it("shows a failed batch's error, an upload's name and size, and nothing to do for a viewer", async () => {
    fakeApi({
      'GET /api/v1/batch-predictions/': page([
        {
          ...BATCH,
          id: 22,
          status: 'failed',
          summary: null,
          files: [],
          error: 'The table has no column named alcohol.',
          source: { ...BATCH.source, kind: 'upload', dataset_version: null, dataset_version_name: null, dataset: null, dataset_name: null, split: '', upload_name: 'wine.csv', upload_size: 2048 },
          deployment: 7,
        },
      ]),
    });
    renderWithApp(<BatchRunsPanel filters={{ project: 4 }} canEdit={false} />);
    expect(await screen.findByTestId('batch-error-22')).toHaveTextContent('no column named alcohol');
    expect(screen.getByTestId('batch-row-22')).toHaveTextContent('File wine.csv (2.0 KiB)');
    expect(screen.getByTestId('batch-row-22')).toHaveTextContent('from deployment #7');
    expect(screen.getByTestId('batch-delete-22')).toBeDisabled();
  });

  it('says when there are no runs', async () => {
    fakeApi({ 'GET /api/v1/batch-predictions/': page([]) });
    renderWithApp(<BatchRunsPanel filters={{ deployment: 7 }} />);
    expect(await screen.findByTestId('batch-runs-empty')).toHaveTextContent('No batch predictions yet.');
  });
});
