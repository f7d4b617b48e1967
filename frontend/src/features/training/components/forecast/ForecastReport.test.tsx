import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { CompareView } from '../CompareView';
import { EvaluationReport } from '../EvaluationReport';
import { ModelVersionsTable } from '../ModelVersionsTable';
import {
  FORECAST_COMPARISON,
  FORECAST_EVALUATION,
  FORECAST_VERSION,
  FORECAST_VERSION_B,
  FORECAST_WORKER_EVALUATION,
  REGRESSION_VERSION,
} from '../evaluationFixtures';

function serve(extra: Record<string, unknown> = {}) {
  return fakeApi({
    'GET /api/v1/model-versions/31/': json(FORECAST_VERSION),
    'GET /api/v1/model-versions/31/evaluation/': json({ id: 31, name: 'V1', evaluation: FORECAST_EVALUATION }),
    'GET /api/v1/model-versions/': json(page([FORECAST_VERSION, FORECAST_VERSION_B])),
    'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V1' }),
    ...extra,
  });
}

const rowSeries = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) => within(row).getAllByRole('cell')[0].textContent);

describe("a forecaster's evaluation report (macrodata, ETS, horizon 8)", () => {
  it('shows MASE, sMAPE, RMSE, coverage and width next to seasonal naive, and the skill over it', async () => {
    serve();
    renderWithApp(<EvaluationReport modelVersionId={31} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    const report = await screen.findByTestId('forecast-report');
    expect(screen.getByTestId('eval-headline')).toHaveTextContent('test MASE 2.363 · skill +5.7%');
    expect(screen.getByTestId('forecast-mase')).toHaveTextContent('2.363');
    expect(screen.getByTestId('forecast-mase-naive')).toHaveTextContent('seasonal naive: 2.507');
    expect(screen.getByTestId('forecast-smape')).toHaveTextContent('9.669%');
    expect(screen.getByTestId('forecast-rmse-naive')).toHaveTextContent('seasonal naive: 143.7');
    expect(screen.getByTestId('forecast-coverage')).toHaveTextContent('22.9%');
    expect(screen.getByTestId('forecast-width')).toHaveTextContent('12.2%');
    expect(screen.getByTestId('forecast-skill')).toHaveTextContent('+5.7%');
    expect(screen.getByTestId('forecast-summary')).toHaveTextContent(
      '6 series forecast 8 steps ahead at frequency QS by ETS, scored on the test window (the last 8 steps of each series: 48 observations).',
    );
    // nothing of a classifier's or a regression model's report
    expect(within(report).queryByTestId('eval-accuracy')).not.toBeInTheDocument();
    expect(screen.queryByTestId('eval-regression')).not.toBeInTheDocument();
  });

  it('plots the chosen series: history, forecast over its interval band, seasonal naive dashed', async () => {
    serve();
    const user = userEvent.setup();
    renderWithApp(<EvaluationReport modelVersionId={31} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    const plot = await screen.findByTestId('forecast-plot');
    expect(plot).toHaveAttribute('data-points', '32');
    expect(plot).toHaveAttribute('data-horizon', '8');
    expect(plot).toHaveAttribute('data-band', 'true');
    expect(plot).toHaveAttribute('data-baseline', 'true');
    expect(within(plot).getByTestId('forecast-plot-band').getAttribute('d')).toMatch(/^M.+Z$/);
    expect(within(plot).getByTestId('forecast-plot-baseline')).toHaveAttribute('stroke-dasharray', '5 4');
    // the forecast line starts at the last history point: 1 + 8 points
    expect(within(plot).getByTestId('forecast-plot-mean').getAttribute('d')?.match(/[ML]/g)).toHaveLength(9);
    expect(within(plot).getByTestId('forecast-plot-actual').getAttribute('d')?.match(/[ML]/g)).toHaveLength(32);
    expect(plot).toHaveTextContent('2001-10-01');
    expect(plot).toHaveTextContent('2007-10-01');
    const before = within(plot).getByTestId('forecast-plot-mean').getAttribute('d');

    // another series from the select, and from the per-series table
    await user.click(screen.getByTestId('forecast-plot-series'));
    await user.click(await screen.findByRole('option', { name: 'unemp', hidden: true }));
    await waitFor(() => expect(screen.getByTestId('forecast-plot-series')).toHaveValue('unemp'));
    expect(within(screen.getByTestId('forecast-plot')).getByTestId('forecast-plot-mean').getAttribute('d')).not.toBe(before);
    await user.click(screen.getByTestId('forecast-series-cpi'));
    expect(screen.getByTestId('forecast-plot-series')).toHaveValue('cpi');
  });

  it('lists series worst first and sorts by any column', async () => {
    serve();
    const user = userEvent.setup();
    renderWithApp(<EvaluationReport modelVersionId={31} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    const table = await screen.findByTestId('forecast-series-table');
    expect(table).toHaveAttribute('data-sort', 'mase:desc');
    expect(rowSeries(table)).toEqual(['realinv', 'unemp', 'realgovt', 'realgdp', 'realcons', 'cpi']);
    const worst = within(screen.getByTestId('forecast-series-realinv')).getAllByRole('cell').map((cell) => cell.textContent);
    expect(worst).toEqual(['realinv', '4.459', '18.06', '429', '13%', '4.369', '-2.1%']);
    await user.click(screen.getByTestId('forecast-sort-smape'));
    expect(rowSeries(table)).toEqual(['unemp', 'realinv', 'realgovt', 'realgdp', 'realcons', 'cpi']);
    await user.click(screen.getByTestId('forecast-sort-smape'));
    expect(table).toHaveAttribute('data-sort', 'smape:asc');
    expect(rowSeries(table)).toEqual(['cpi', 'realcons', 'realgdp', 'realgovt', 'realinv', 'unemp']);
    // skill sorts best first on its first click
    await user.click(screen.getByTestId('forecast-sort-skill'));
    expect(rowSeries(table)[0]).toBe('realcons');
    expect(screen.getByTestId('forecast-sort-skill').closest('th')).toHaveAttribute('aria-sort', 'ascending');
  });

  it('shows the error by horizon, the backtest windows and the baselines with the chosen weight', async () => {
    serve();
    renderWithApp(<EvaluationReport modelVersionId={31} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    expect(await screen.findByTestId('forecast-horizon-chart')).toHaveAttribute('data-steps', '8');
    const windows = screen.getByTestId('forecast-backtest');
    expect(within(windows).getAllByRole('row')).toHaveLength(4);
    expect(screen.getByTestId('forecast-window-0')).toHaveAttribute('data-role', 'validation');
    expect(within(screen.getByTestId('forecast-window-0')).getAllByRole('cell').map((cell) => cell.textContent)).toEqual([
      'validation',
      '2003-07-01',
      '0.7586',
      '3.367',
      '73%',
      '2.38',
    ]);
    expect(screen.getByTestId('forecast-window-2')).toHaveAttribute('data-role', 'test');
    const ets = screen.getByTestId('forecast-baseline-ets');
    expect(within(ets).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['ETSchosen', '2.363', '9.669', '23%', '0.5476', '100%']);
    const theta = screen.getByTestId('forecast-baseline-theta');
    expect(within(theta).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['Theta', '2.275', '10.81', '—', '—', '—']);
    expect(screen.getByTestId('forecast-baseline-seasonal_naive')).toHaveTextContent('Seasonal naive');
  });

  it('is in Chinese when the UI is', async () => {
    serve();
    await i18n.changeLanguage('zh-CN');
    try {
      renderWithApp(<EvaluationReport modelVersionId={31} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
      await screen.findByTestId('forecast-report');
      expect(screen.getByTestId('eval-headline')).toHaveTextContent('技能得分 +5.7%');
      expect(screen.getByTestId('forecast-mase-naive')).toHaveTextContent('季节朴素:2.507');
      expect(screen.getByText('回测窗口')).toBeInTheDocument();
      expect(screen.getByTestId('forecast-baseline-seasonal_naive')).toHaveTextContent('季节朴素');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});

describe("the worker's own report (synthetic store sales, fast preset, LightGBM chosen)", () => {
  it('renders every part of it', async () => {
    serve({ 'GET /api/v1/model-versions/31/evaluation/': json({ id: 31, name: 'V1', evaluation: FORECAST_WORKER_EVALUATION }) });
    renderWithApp(<EvaluationReport modelVersionId={31} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    await screen.findByTestId('forecast-report');
    expect(screen.getByTestId('eval-headline')).toHaveTextContent('test MASE 1.046 · skill +6.2%');
    expect(screen.getByTestId('forecast-summary')).toHaveTextContent('4 series forecast 14 steps ahead at frequency D by LightGBM');
    expect(screen.getByTestId('forecast-summary')).toHaveTextContent('56 observations');
    const plot = screen.getByTestId('forecast-plot');
    expect(plot).toHaveAttribute('data-horizon', '14');
    expect(plot).toHaveAttribute('data-points', '42');
    expect(within(plot).getByTestId('forecast-plot-band')).toBeInTheDocument();
    expect(screen.getByTestId('forecast-horizon-chart')).toHaveAttribute('data-steps', '14');
    expect(rowSeries(screen.getByTestId('forecast-series-table'))).toEqual(['s03', 's04', 's02', 's01']);
    // four validation windows from backtest.json, then the test window
    const windows = within(screen.getByTestId('forecast-backtest')).getAllByRole('row').slice(1);
    expect(windows.map((row) => row.getAttribute('data-role'))).toEqual(['validation', 'validation', 'validation', 'validation', 'test']);
    expect(screen.getByTestId('forecast-baseline-lightgbm')).toHaveAttribute('data-weight', '1');
    expect(within(screen.getByTestId('forecast-baseline-arima')).getAllByRole('cell')[4]).toHaveTextContent('—');
  });
});

describe('comparing two forecasters', () => {
  it("shows the API's comparison: overall deltas, MASE per series (largest changes first) and by horizon", async () => {
    const api = serve({ 'GET /api/v1/model-versions/compare/': json(FORECAST_COMPARISON) });
    renderWithApp(<CompareView projectId={4} a={31} b={32} onChange={vi.fn()} />);
    const view = await screen.findByTestId('compare-forecast');
    expect(api.callsTo('GET', '/api/v1/model-versions/compare/')[0].search.toString()).toBe('a=31&b=32');
    expect(screen.getByTestId('compare-overall-delta-mase')).toHaveTextContent('-0.0884');
    expect(screen.getByTestId('compare-overall-delta-mase')).toHaveStyle({ color: 'var(--mantine-color-teal-text)' });
    expect(screen.getByTestId('compare-overall-delta-rmse')).toHaveAttribute('data-value', String(FORECAST_COMPARISON.rmse.delta));
    expect(screen.getByTestId('compare-overall-delta-skill')).toHaveTextContent('+3.5%');
    expect(screen.getByTestId('compare-overall-delta-coverage')).toHaveTextContent('—');
    const series = screen.getByTestId('compare-forecast-series');
    expect(rowSeries(series)[0]).toBe('realgdp');
    expect(screen.getByTestId('compare-forecast-horizon')).toHaveAttribute('data-steps', '8');
    expect(within(view).queryByTestId('compare-unavailable')).not.toBeInTheDocument();
  });

  it('refuses to compare a forecaster with a regression model', async () => {
    serve({ 'GET /api/v1/model-versions/': json(page([FORECAST_VERSION, REGRESSION_VERSION])) });
    renderWithApp(<CompareView projectId={4} a={31} b={21} onChange={vi.fn()} />);
    expect(await screen.findByTestId('compare-unavailable')).toHaveTextContent('V1 is not a forecaster');
  });
});

describe("a project's forecasters in the model versions list", () => {
  it('are listed by test MASE and sMAPE', async () => {
    serve();
    renderWithApp(<ModelVersionsTable projectId={4} onCompare={vi.fn()} />);
    const headline = await screen.findByTestId('model-version-accuracy-31');
    expect(headline).toHaveTextContent('MASE 2.363 · sMAPE 9.669%');
    expect(headline).toHaveAttribute('title', 'test MASE 2.363, sMAPE 9.669%, interval coverage 22.9%');
    expect(screen.getByRole('columnheader', { name: 'Test MASE · sMAPE' })).toBeInTheDocument();
  });
});
