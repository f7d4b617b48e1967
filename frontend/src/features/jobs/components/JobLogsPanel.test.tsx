import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { JobLogsPanel } from './JobLogsPanel';

const line = (seq: number, stream: 'stdout' | 'stderr' | 'system', text: string) => ({ seq, stream, text, at: '2026-12-05T10:00:00Z' });

describe('JobLogsPanel', () => {
  it('reads on from the last line while the job runs, with each stream styled', async () => {
    const pages = [
      { lines: [line(1, 'system', 'installing requirements'), line(2, 'stdout', 'epoch 1 loss 0.9')], next_after: 2, finished: false },
      { lines: [line(3, 'stderr', 'UserWarning: slow'), line(4, 'stdout', 'epoch 2 loss 0.4')], next_after: 4, finished: false },
      { lines: [], next_after: 4, finished: true },
    ];
    const afters: string[] = [];
    fakeApi({
      'GET /api/v1/jobs/5/logs/': (call: RecordedCall) => {
        afters.push(call.search.get('after') ?? '');
        return json(pages[Math.min(afters.length - 1, pages.length - 1)]);
      },
    });
    renderWithApp(<JobLogsPanel jobId={5} live />);

    expect(await screen.findByText('epoch 1 loss 0.9')).toBeInTheDocument();
    expect(await screen.findByText('epoch 2 loss 0.4', {}, { timeout: 4000 })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('job-logs')).toHaveAttribute('data-finished', 'true'), { timeout: 4000 });
    expect(afters.slice(0, 3)).toEqual(['0', '2', '4']);
    const lines = screen.getAllByTestId('job-log-line');
    expect(lines.map((item) => item.getAttribute('data-stream'))).toEqual(['system', 'stdout', 'stderr', 'stdout']);
    expect(lines.map((item) => item.textContent)).toEqual(['installing requirements', 'epoch 1 loss 0.9', 'UserWarning: slow', 'epoch 2 loss 0.4']);
    expect(screen.getByTestId('job-logs-count')).toHaveTextContent('4 lines');
    expect(screen.getByTestId('job-logs-copy')).toBeEnabled();
  });

  it('says a finished job wrote nothing and stops asking', async () => {
    const api = fakeApi({ 'GET /api/v1/jobs/6/logs/': { lines: [], next_after: 0, finished: true } });
    renderWithApp(<JobLogsPanel jobId={6} live={false} />);
    expect(await screen.findByTestId('job-logs-empty')).toHaveTextContent('This job wrote no log lines.');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(api.callsTo('GET', '/api/v1/jobs/6/logs/')).toHaveLength(1);
    expect(screen.getByTestId('job-logs-copy')).toBeDisabled();
  });
});
