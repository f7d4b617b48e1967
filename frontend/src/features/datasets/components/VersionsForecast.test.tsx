import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { i18n } from '@/i18n';
import { apiError, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { VersionsPanel } from './VersionsPanel';

const DATASET = { id: 5, task_type: 'time_series_forecasting', name: 'stores', sample_count: 1200 };

const VERSION = {
  id: 11, dataset: 5, name: 'v1', number: 1, train_ratio: 0.8, val_ratio: 0.1, test_ratio: 0.1, seed: 0, note: 'two weeks',
  reviewed_only: false, classes: [], counts: {}, totals: { train: 1000, val: 84, test: 84 }, sample_count: 1168, unlabeled_excluded: 0,
  horizon: 14, time_split: { horizon: 14, observations: { train: 1000, val: 84, test: 84 }, series: { train: 7, val: 6, test: 6 }, train_only_series: 1 },
  created_by: 'admin', created_at: '2026-12-05T07:00:00Z',
};

describe('a forecasting dataset version', () => {
  it('is asked for with a horizon (no ratios) and listed with its horizon and split by time', async () => {
    const versions: object[] = [];
    const server = fakeApi({
      'GET /api/v1/datasets/5/': json(DATASET),
      'GET /api/v1/datasets/5/profile/': json({ kind: 'time_series_profile', season_length: 7, series: [] }),
      'GET /api/v1/datasets/5/versions/': () => json(page(versions)),
      'POST /api/v1/datasets/5/versions/': () => {
        versions.push(VERSION);
        return json(VERSION, 201);
      },
    });
    const user = userEvent.setup();
    renderWithApp(<VersionsPanel datasetId={5} canEdit />);
    const horizon = await screen.findByTestId('version-horizon');
    expect(screen.queryByTestId('version-train-ratio')).not.toBeInTheDocument();
    await waitFor(() => expect(horizon).toHaveAttribute('placeholder', 'e.g. 7, one season'));
    expect(screen.getByTestId('version-create-submit')).toBeDisabled();

    await user.type(horizon, '1001');
    expect(screen.getByTestId('versions-panel')).toHaveTextContent('A whole number from 1 to 1000.');
    expect(screen.getByTestId('version-create-submit')).toBeDisabled();
    await user.clear(horizon);
    await user.type(horizon, '14');
    await user.type(screen.getByTestId('version-note'), 'two weeks');
    await user.click(screen.getByTestId('version-create-submit'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/datasets/5/versions/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/datasets/5/versions/')[0].body).toEqual({ horizon: 14, note: 'two weeks' });

    expect(await screen.findByTestId('version-horizon-11')).toHaveTextContent('horizon 14');
    expect(screen.getByTestId('version-split-test-11')).toHaveTextContent('84');
    expect(screen.getByTestId('version-series-train-11')).toHaveTextContent('7');
    expect(screen.getByTestId('version-train-only-11')).toHaveTextContent('1 series is too short for the validation and test windows (it needs 30 steps)');
  });

  it('shows the server refusing a horizon longer than every series', async () => {
    fakeApi({
      'GET /api/v1/datasets/5/': json(DATASET),
      'GET /api/v1/datasets/5/versions/': json(page([])),
      'POST /api/v1/datasets/5/versions/': apiError(400, 'horizon_too_long', "No series is long enough for horizon 400: the longest, 's01', has 365 steps; it needs 802.", {
        series: 's01', length: 365, needed: 802,
      }),
    });
    const user = userEvent.setup();
    renderWithApp(<VersionsPanel datasetId={5} canEdit />);
    await user.type(await screen.findByTestId('version-horizon'), '400');
    await user.click(screen.getByTestId('version-create-submit'));
    expect(await screen.findByTestId('version-create-error')).toHaveTextContent("the longest, 's01', has 365 steps");
  });

  it('in zh-CN', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi({ 'GET /api/v1/datasets/5/': json(DATASET), 'GET /api/v1/datasets/5/versions/': json(page([VERSION])) });
    renderWithApp(<VersionsPanel datasetId={5} canEdit />);
    expect(await screen.findByTestId('version-horizon-11')).toHaveTextContent('步长 14');
    expect(screen.getByTestId('versions-panel')).toHaveTextContent('预测步长');
  });
});
