import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { apiError, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { parseHistory } from '../api/predict';
import { predictSnippet } from '../api/snippets';
import { DEPLOYMENT } from '../test/fixtures';
import { DeploymentDetail } from './DeploymentDetail';
import { DeploymentOverview } from './DeploymentOverview';
import { SnippetsPanel } from './SnippetsPanel';
import { TrafficPanel } from './TrafficPanel';
import { ModelVersionTryPanel, TryItPanel } from './TryItPanel';

/** statsmodels' Nile flow (annual, 1871-): the last 12 years of history a try pastes. */
const NILE = [
  ['1959', 1050], ['1960', 1150], ['1961', 1160], ['1962', 1160], ['1963', 1000], ['1964', 1140],
  ['1965', 1040], ['1966', 920], ['1967', 1080], ['1968', 1200], ['1969', 900], ['1970', 790],
] as const;
const CSV = ['timestamp,value', ...NILE.map(([year, value]) => `${year}-01-01,${value}`)].join('\n');

const CONTRACT = {
  frequency: 'YS',
  min_history: 8,
  horizon: 5,
  quantiles: [0.1, 0.5, 0.9],
  interval_level: 0.8,
  known_covariates: [],
  static_covariates: [],
  series_ids: ['nile'],
};
const VERSION = { id: 31, name: 'V1', template: 'time_series_forecasting', forecast_contract: CONTRACT };
const FORECASTER = { id: 21, status: 'active' as const, template: 'time_series_forecasting', model_version: 31 };
const ANSWER = {
  kind: 'forecast_prediction',
  version: 1,
  model_version: { id: 31, name: 'V1', template: 'time_series_forecasting' },
  predictions: [
    {
      id: 'series-0',
      timestamps: ['1971-01-01', '1972-01-01', '1973-01-01', '1974-01-01', '1975-01-01'],
      mean: [845.2, 851.7, 858.1, 864.4, 870.6],
      quantiles: { '0.1': [672.0, 655.3, 641.8, 630.2, 619.9], '0.9': [1018.4, 1048.1, 1074.4, 1098.6, 1121.3] },
    },
  ],
  latency_ms: 1.7,
};

describe('parseHistory', () => {
  it('reads "timestamp,value" lines after a header as one series', () => {
    const body = parseHistory(CSV);
    expect(body.instances).toHaveLength(1);
    expect(body.instances[0].id).toBeUndefined();
    expect(body.instances[0].timestamps.slice(0, 2)).toEqual(['1959-01-01', '1960-01-01']);
    expect(body.instances[0].values.at(-1)).toBe(790);
  });

  it('groups "id,timestamp,value" lines by id in the order met', () => {
    const body = parseHistory('id,date,sales\ns01,2024-01-01,3\ns02,2024-01-01,5\ns01,2024-01-02,4\n\ns02,2024-01-02,"6.5"');
    expect(body.instances).toEqual([
      { id: 's01', timestamps: ['2024-01-01', '2024-01-02'], values: [3, 4] },
      { id: 's02', timestamps: ['2024-01-01', '2024-01-02'], values: [5, 6.5] },
    ]);
  });

  it('takes JSON: a request body, a list of instances or one instance', () => {
    const instance = { id: 's01', timestamps: ['2024-01-01'], values: [1], known: { price: [1, 2] } };
    expect(parseHistory(JSON.stringify({ instances: [instance], horizon: 1 }))).toEqual({ instances: [instance], horizon: 1 });
    expect(parseHistory(JSON.stringify([instance])).instances).toEqual([instance]);
    expect(parseHistory(JSON.stringify(instance)).instances).toEqual([instance]);
  });

  it('names the line or the instance at fault', () => {
    expect(() => parseHistory('2024-01-01,1\n2024-01-02,n/a')).toThrow('Line 2: "n/a" is not a number.');
    expect(() => parseHistory('2024-01-01')).toThrow('Line 1: write "timestamp,value" or "id,timestamp,value".');
    expect(() => parseHistory('{"instances": [{"values": [1]}]}')).toThrow('Instance 0 needs "timestamps" and "values" lists.');
    expect(() => parseHistory('{"instances": [')).toThrow('The history is not valid JSON');
    expect(() => parseHistory('  ')).toThrow('Paste a history');
  });
});

describe("a forecaster's Try it", () => {
  it('sends the pasted history with the horizon and quantiles, and draws history + forecast with its band', async () => {
    const api = fakeApi({ 'GET /api/v1/model-versions/31/': json(VERSION), 'POST /api/v1/deployments/21/try/': json(ANSWER) });
    const user = userEvent.setup();
    renderWithApp(<TryItPanel deployment={FORECASTER} />);
    expect(screen.queryByTestId('try-dropzone')).not.toBeInTheDocument();
    expect(await screen.findByTestId('forecast-contract-min-history')).toHaveTextContent('8 points');
    expect(screen.getByTestId('forecast-contract-horizon')).toHaveTextContent('5 steps');
    // the interval's two quantiles are asked for at first
    await waitFor(() => expect(screen.getByTestId('forecast-quantile-0.1')).toBeChecked());
    expect(screen.getByTestId('forecast-quantile-0.5')).not.toBeChecked();
    expect(screen.getByTestId('forecast-quantile-0.9')).toBeChecked();
    expect(screen.getByRole('button', { name: 'Forecast' })).toBeDisabled();

    await user.click(screen.getByTestId('forecast-history-input'));
    await user.paste(CSV);
    await user.type(screen.getByTestId('forecast-horizon'), '5');
    await user.click(screen.getByRole('button', { name: 'Forecast' }));

    const chart = await screen.findByTestId('forecast-result-chart');
    const [call] = api.callsTo('POST', '/api/v1/deployments/21/try/');
    expect(call.body).toEqual({
      instances: [{ timestamps: NILE.map(([year]) => `${year}-01-01`), values: NILE.map(([, value]) => value) }],
      horizon: 5,
      quantiles: [0.1, 0.9],
    });
    expect(chart).toHaveAttribute('data-points', '17');
    expect(chart).toHaveAttribute('data-horizon', '5');
    expect(chart).toHaveAttribute('data-band', 'true');
    expect(within(chart).getByTestId('forecast-result-chart-actual').getAttribute('d')?.match(/[ML]/g)).toHaveLength(12);
    expect(within(chart).getByTestId('forecast-result-chart-band')).toBeInTheDocument();
    expect(within(chart).getByText('1971-01-01')).toBeInTheDocument();
    const rows = within(screen.getByTestId('forecast-result-table')).getAllByRole('row');
    expect(rows.map((row) => row.textContent)).toEqual([
      'TimestampMeanq0.1q0.9',
      '1971-01-01845.26721,018.4',
      '1972-01-01851.7655.31,048.1',
      '1973-01-01858.1641.81,074.4',
      '1974-01-01864.4630.21,098.6',
      '1975-01-01870.6619.91,121.3',
    ]);
    expect(screen.getByTestId('try-latency')).toHaveTextContent('server 1.70 ms');
  });

  it("shows a refused history's message with the series, id and position the API names", async () => {
    const message = "instances[1] (id 's02'): values[1] is NaN; send numbers only, without gaps";
    fakeApi({
      'GET /api/v1/model-versions/31/': json(VERSION),
      'POST /api/v1/model-versions/31/try/': apiError(400, 'history_not_numeric', message, { series: 1, id: 's02', position: 1, field: 'values' }),
    });
    const user = userEvent.setup();
    renderWithApp(<ModelVersionTryPanel version={VERSION} />);
    await user.click(await screen.findByTestId('forecast-history-input'));
    await user.paste('s01,2024-01-01,3\ns01,2024-01-02,4\ns02,2024-01-01,5\ns02,2024-01-02,6');
    await user.click(screen.getByRole('button', { name: 'Forecast' }));
    const alert = await screen.findByTestId('try-error');
    expect(alert).toHaveTextContent('400 history_not_numeric');
    expect(alert).toHaveTextContent(message);
    const where = screen.getByTestId('forecast-error-location');
    expect(where).toHaveTextContent('series 2 · id "s02" · field values · position 1');
    expect(where).toHaveAttribute('data-position', '1');
    expect(screen.queryByTestId('forecast-result-chart')).not.toBeInTheDocument();
  });

  it('says what is wrong with a pasted history before sending it', async () => {
    const api = fakeApi({ 'GET /api/v1/model-versions/31/': json(VERSION) });
    const user = userEvent.setup();
    renderWithApp(<TryItPanel deployment={FORECASTER} />);
    await user.click(await screen.findByTestId('forecast-history-input'));
    await user.paste('2024-01-01,1\n2024-01-02,oops');
    await user.click(screen.getByRole('button', { name: 'Forecast' }));
    expect(await screen.findByTestId('try-input-error')).toHaveTextContent('Line 2: "oops" is not a number.');
    expect(api.callsTo('POST', '/api/v1/deployments/21/try/')).toHaveLength(0);
  });

  it('is in Chinese when the UI is', async () => {
    fakeApi({ 'GET /api/v1/model-versions/31/': json(VERSION) });
    await i18n.changeLanguage('zh-CN');
    try {
      renderWithApp(<TryItPanel deployment={FORECASTER} />);
      expect(await screen.findByRole('button', { name: '预测' })).toBeInTheDocument();
      expect(await screen.findByTestId('forecast-contract-min-history')).toHaveTextContent('8 个点');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});

describe("a forecaster's deployment", () => {
  const deployment = { ...DEPLOYMENT, template: 'time_series_forecasting', forecast_contract: { ...CONTRACT, known_covariates: ['price', 'holiday'], static_covariates: ['region'] } };

  it('shows its forecast contract on the overview', async () => {
    fakeApi({ 'GET /api/v1/model-versions/': page([]) });
    renderWithApp(<DeploymentOverview deployment={deployment} onDeleted={vi.fn()} />);
    const contract = await screen.findByTestId('forecast-contract');
    expect(within(contract).getByTestId('forecast-contract-frequency')).toHaveTextContent('YS');
    expect(within(contract).getByTestId('forecast-contract-quantiles')).toHaveTextContent('0.1, 0.5, 0.9 (80% interval)');
    expect(within(contract).getByTestId('forecast-contract-known')).toHaveTextContent('priceholiday');
    expect(within(contract).getByTestId('forecast-contract-static')).toHaveTextContent('region');
    expect(within(contract).getByTestId('forecast-contract-series')).toHaveTextContent('1 series');
  });

  it('has no capture or batch tab to use: the API refuses forecasters there', async () => {
    fakeApi({ 'GET /api/v1/deployments/7/': json(deployment), 'GET /api/v1/model-versions/': page([]) });
    renderWithApp(<DeploymentDetail deploymentId={7} tab="overview" onTabChange={vi.fn()} onDeleted={vi.fn()} />);
    expect(await screen.findByTestId('deployment-tab-batch')).toBeDisabled();
    expect(screen.getByTestId('deployment-tab-capture')).toBeDisabled();
    expect(screen.getByTestId('deployment-tab-capture')).toHaveAttribute('title', expect.stringContaining('request capture and batch prediction take images'));
    expect(screen.getByTestId('deployment-tab-try')).toBeEnabled();
    expect(await screen.findByTestId('forecast-contract')).toBeInTheDocument();
  });

  it('offers canaries but no shadow release (the API refuses a shadow for forecasters)', async () => {
    fakeApi({ 'GET /api/v1/model-versions/': page([]) });
    renderWithApp(<TrafficPanel deployment={{ ...deployment, traffic: [{ model_version: 12, model_version_name: 'V3', role: 'primary' as const, weight: 100 }] }} />);
    expect(screen.getByTestId('traffic-shadow-unavailable')).toHaveTextContent('Forecasters have no shadow releases');
    expect(screen.queryByTestId('traffic-shadow-select')).not.toBeInTheDocument();
    expect(screen.getByTestId('traffic-share-12')).toHaveAttribute('data-weight', '100');
  });

  it('gives forecast requests as code: curl, the Python SDK and JavaScript', async () => {
    const options = { predictUrl: 'http://h/api/v1/deployments/7/predict/', deploymentId: 7, baseUrl: 'http://h', kind: 'forecast' as const, contract: deployment.forecast_contract };
    const curl = predictSnippet('curl', options);
    expect(curl).toContain('curl -X POST "http://h/api/v1/deployments/7/predict/"');
    expect(curl).toContain('"horizon": 5, "quantiles": [0.1, 0.9]');
    expect(curl).toContain('"known": {"price"');
    expect(curl).toContain('at least 8 points');
    const python = predictSnippet('python', options);
    expect(python).toContain('deployment = client.deployments.get(7)');
    expect(python).toContain('forecast = deployment.forecast(history, horizon=5, quantiles=[0.1, 0.9])');
    expect(python).toContain('known_future=');
    const js = predictSnippet('javascript', options);
    expect(js).toContain('body: JSON.stringify({ instances: [history], horizon: 5, quantiles: [0.1, 0.9] })');

    renderWithApp(<SnippetsPanel deployment={deployment} />);
    expect(screen.getByText(/Send each series' recent history/)).toBeInTheDocument();
    expect(screen.getByTestId('snippet-curl')).toHaveTextContent('"quantiles": [0.1, 0.9]');
  });
});
