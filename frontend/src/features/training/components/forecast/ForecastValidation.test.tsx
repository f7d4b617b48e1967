import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { ProgressEvent } from '../../api/trainingJobs';
import { TrainingMonitor } from '../TrainingMonitor';
import { validationReports } from './forecastFormat';

function progress(seq: number, fields: Record<string, unknown>) {
  const data = { kind: 'progress', version: 1, ...fields } as ProgressEvent;
  return { seq, at: '2026-12-05T07:00:00Z', type: 'progress' as const, message: String(fields.message ?? ''), data };
}

// what workers/time_series/trainer.py reports: the plan, each candidate's validation MASE on the
// backtest windows, then the chosen forecaster's with sMAPE and coverage; no epochs or steps
const EVENTS = [
  progress(2, { message: '6 series, horizon 8, candidates: naive, seasonal_naive, ets, theta', fraction: 0 }),
  progress(3, { message: 'naive: validation MASE 0.9120', fraction: 0.2, val_mase: 0.912 }),
  progress(4, { message: 'seasonal_naive: validation MASE 1.5849', fraction: 0.4, val_mase: 1.5849 }),
  progress(5, { message: 'ets: validation MASE 0.5476', fraction: 0.6, val_mase: 0.5476 }),
  progress(6, { message: 'theta: validation MASE 0.7013', fraction: 0.8, val_mase: 0.7013 }),
  progress(7, { message: 'chosen: ets 1.00; validation MASE 0.5476', fraction: 0.82, val_mase: 0.5476, val_smape: 3.41, val_coverage: 0.79 }),
];

describe("a forecaster's training monitor", () => {
  it("lists each candidate's validation MASE and the chosen forecaster's, instead of epoch curves", async () => {
    fakeApi({ 'GET /api/v1/jobs/9/events/': (call: RecordedCall) => json(page(call.search.get('after') ? [] : EVENTS)) });
    const job = {
      id: 9,
      status: 'running' as const,
      progress: { kind: 'progress' as const, version: 1, fraction: 0.82 },
      result: null,
      params: { kind: 'training.run', template: 'time_series_forecasting' },
    };
    renderWithApp(<TrainingMonitor job={job} />);
    const panel = await screen.findByTestId('forecast-validation');
    await waitFor(() => expect(panel).toHaveAttribute('data-reports', '5'));
    expect(screen.getByTestId('forecast-validation-candidates')).toHaveTextContent('4');
    expect(screen.getByTestId('forecast-validation-best')).toHaveTextContent('0.5476');
    expect(screen.getByTestId('forecast-validation-chosen')).toHaveTextContent('0.5476');
    expect(screen.getByTestId('forecast-validation-coverage')).toHaveTextContent('79.0%');
    expect(screen.getByTestId('forecast-validation-7')).toHaveAttribute('data-chosen', 'true');
    expect(within(screen.getByTestId('forecast-validation-4')).getAllByRole('cell').map((cell) => cell.textContent)).toEqual([
      'seasonal_naive: validation MASE 1.5849',
      '1.585',
    ]);
    // no epoch/step curves or accuracy stats for a forecaster
    expect(screen.queryByTestId('curve-loss')).not.toBeInTheDocument();
    expect(screen.queryByTestId('train-val-acc')).not.toBeInTheDocument();
    expect(screen.queryByTestId('curves-axis')).not.toBeInTheDocument();
  });

  it('knows a forecaster by its template before the first validation report', async () => {
    fakeApi({ 'GET /api/v1/jobs/9/events/': json(page([EVENTS[0]])) });
    const job = { id: 9, status: 'running' as const, progress: { kind: 'progress' as const, version: 1 }, result: null, params: { template: 'time_series_forecasting' } };
    renderWithApp(<TrainingMonitor job={job} />);
    expect(await screen.findByTestId('forecast-validation')).toHaveAttribute('data-reports', '0');
    expect(screen.getByText("Waiting for the first candidate's validation score…")).toBeInTheDocument();
  });

  it('reads only progress reports that carry a validation MASE', () => {
    expect(validationReports(EVENTS).map((report) => [report.seq, report.chosen])).toEqual([
      [3, false],
      [4, false],
      [5, false],
      [6, false],
      [7, true],
    ]);
  });
});
