import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { apiError, fakeApi, json, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { Dataset } from '../api/datasets';
import type { SeriesProfile, TimeSeriesProfile } from '../api/timeSeries';
import { sortSeries } from './timeSeriesView';
import { StatisticsPanel } from './StatisticsPanel';

const DAYS = 60;

function day(index: number): string {
  return new Date(Date.UTC(2026, 0, 1) + index * 86_400_000).toISOString().slice(0, 10);
}

function seriesProfile(index: number): SeriesProfile {
  const id = `s${String(index).padStart(3, '0')}`;
  return {
    id, item: id, target: 'sales', start: day(0), end: day(DAYS - 1 - (index % 7)), length: DAYS - (index % 7), missing: index % 3,
    missing_share: (index % 3) / DAYS, mean: 10 + index, std: 2, minimum: 0, maximum: 30, season_length: 7,
    seasonal_strength: index === 5 ? null : (index % 10) / 10, trend_strength: 0.3, zero_share: index % 4 === 0 ? 0.5 : 0,
  };
}

const PROFILE: TimeSeriesProfile = {
  kind: 'time_series_profile', version: 1, frequency: 'D', frequency_inferred: 'D', season_length: 7, series_count: 45,
  observations: 2500, missing_share: 0.012, shortest: 54, longest: 60,
  series: Array.from({ length: 45 }, (_, index) => seriesProfile(index)),
};

const DATASET = {
  id: 9, workspace: 1, project: 1, name: 'stores', description: '', task_type: 'time_series_forecasting', sample_count: 2500,
  labeled_count: 0, label_count: 0, created_by: 'admin', created_at: '2026-12-05T00:00:00Z',
  schema: {
    kind: 'time_series', timestamp_column: 'date', series_column: 'store', target_columns: ['sales'], known_covariates: [],
    static_covariates: [], frequency: 'D', frequency_inferred: 'D', fill_rule: 'interpolate',
  },
} as unknown as Dataset;

/** The series endpoint as the server answers: each asked id's points between start and end, every n-th to fit max_points. */
function seriesAnswer(call: RecordedCall) {
  const ids = call.search.getAll('id');
  const start = call.search.get('start') ?? day(0);
  const end = call.search.get('end') ?? day(DAYS - 1);
  const maxPoints = Number(call.search.get('max_points') ?? 1000);
  return json(
    ids.map((id) => {
      const all = Array.from({ length: DAYS }, (_, index) => day(index)).filter((timestamp) => timestamp >= start && timestamp <= end);
      const step = Math.max(1, Math.ceil(all.length / maxPoints));
      const timestamps = all.filter((_, index) => index % step === 0);
      return { id, timestamps, values: timestamps.map((_, index) => (index === 3 ? null : 10 + (index % 7))), total_points: all.length, step };
    }),
  );
}

describe('SeriesProfilePanel', () => {
  beforeEach(() => {
    // jsdom lays nothing out: give the chart's container a size, as a 1024 px window would.
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue({ width: 800, height: 320, top: 0, left: 0, right: 800, bottom: 320, x: 0, y: 0, toJSON: () => ({}) });
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(320);
  });
  afterEach(() => vi.restoreAllMocks());

  it('summarises the series, plots the first three picked and redraws when the user picks another', async () => {
    const server = fakeApi({
      'GET /api/v1/datasets/9/': json(DATASET),
      'GET /api/v1/datasets/9/profile/': json(PROFILE),
      'GET /api/v1/datasets/9/series/': seriesAnswer,
    });
    const user = userEvent.setup();
    renderWithApp(<StatisticsPanel datasetId={9} canEdit />);
    const panel = await screen.findByTestId('series-profile');
    expect(within(panel).getByTestId('series-stat-frequency')).toHaveTextContent('daily (D)');
    expect(within(panel).getByTestId('series-stat-count')).toHaveTextContent('45');
    expect(within(panel).getByTestId('series-stat-length')).toHaveTextContent('54 – 60');

    // The first three profiled series are plotted, one line each with its points (the missing value is a gap).
    const chart = await screen.findByTestId('series-chart');
    await waitFor(() => expect(chart).toHaveAttribute('data-points', String(3 * DAYS)));

    await waitFor(() => expect(chart.querySelectorAll('svg .recharts-line path.recharts-curve')).toHaveLength(3));
    expect(server.callsTo('GET', '/api/v1/datasets/9/series/')[0].search.getAll('id')).toEqual(['s000', 's001', 's002']);

    // 45 series, 20 a page; the table is paginated and searchable.
    expect(screen.getAllByTestId('series-row')).toHaveLength(20);
    await user.type(screen.getByTestId('series-search'), 's04');
    await waitFor(() => expect(screen.getAllByTestId('series-row').map((row) => row.dataset.series)).toEqual(['s042', 's043', 's044', 's040', 's041']));
    await user.click(screen.getByTestId('series-pick-s042'));
    await waitFor(() => expect(chart).toHaveAttribute('data-points', String(4 * DAYS)));
    expect(server.callsTo('GET', '/api/v1/datasets/9/series/').at(-1)!.search.getAll('id')).toEqual(['s000', 's001', 's002', 's042']);
    expect(screen.getByTestId('series-picked')).toHaveTextContent('4 of 5 plotted');

    // Five at most: the other checkboxes are disabled once five are picked.
    await user.click(screen.getByTestId('series-pick-s043'));
    expect(screen.getByTestId('series-pick-s044')).toBeDisabled();
    expect(screen.getByTestId('series-pick-s043')).toBeChecked();
  });

  it('zooms with the range slider: the window is read again from the server with start and end', async () => {
    const server = fakeApi({
      'GET /api/v1/datasets/9/': json(DATASET),
      'GET /api/v1/datasets/9/profile/': json(PROFILE),
      'GET /api/v1/datasets/9/series/': seriesAnswer,
    });
    renderWithApp(<StatisticsPanel datasetId={9} />);
    const chart = await screen.findByTestId('series-chart');
    await waitFor(() => expect(chart).toHaveAttribute('data-points', String(3 * DAYS)));
    const [from] = within(screen.getByTestId('series-zoom').parentElement!).getAllByRole('slider');
    from.focus();
    for (let index = 0; index < 30; index += 1) fireEvent.keyDown(from, { key: 'ArrowRight' });
    expect(screen.getByTestId('series-zoom-window')).toHaveTextContent(`Showing ${day(30)} to ${day(DAYS - 1)}`);
    await waitFor(() => expect(chart).toHaveAttribute('data-zoomed', 'true'));
    // the zoomed window is read after the slider settles: wait for that request, not the first one after the move
    await waitFor(() => {
      const zoomed = server.callsTo('GET', '/api/v1/datasets/9/series/').at(-1)!;
      expect(zoomed.search.get('start')).toBe(day(30));
      expect(zoomed.search.get('end')).toBe(day(DAYS - 1));
    });
    await waitFor(() => expect(chart).toHaveAttribute('data-points', String(3 * (DAYS - 30))));

    fireEvent.click(screen.getByTestId('series-zoom-reset'));
    await waitFor(() => expect(chart).toHaveAttribute('data-points', String(3 * DAYS)));
    expect(chart).toHaveAttribute('data-zoomed', 'false');
  });

  it('plots a series the profile does not list (it holds the longest only) once the server knows its id', async () => {
    const server = fakeApi({
      'GET /api/v1/datasets/9/': json(DATASET),
      'GET /api/v1/datasets/9/profile/': json({ ...PROFILE, series_count: 5000 }),
      'GET /api/v1/datasets/9/series/': (call: RecordedCall) =>
        call.search.getAll('id').includes('nope') ? apiError(400, 'unknown_series', "This dataset has no series 'nope'.", { series: 'nope' }) : seriesAnswer(call),
    });
    const user = userEvent.setup();
    renderWithApp(<StatisticsPanel datasetId={9} />);
    expect(await screen.findByTestId('series-profiled-share')).toHaveTextContent('the 45 longest of 5,000 series');
    await user.type(screen.getByTestId('series-search'), 'nope');
    await user.click(await screen.findByTestId('series-lookup-plot'));
    expect(await screen.findByTestId('series-lookup-error')).toHaveTextContent("This dataset has no series 'nope'.");

    await user.clear(screen.getByTestId('series-search'));
    await user.type(screen.getByTestId('series-search'), 'x4999');
    await user.click(await screen.findByTestId('series-lookup-plot'));
    await waitFor(() => expect(screen.getByTestId('series-picked')).toHaveTextContent('x4999'));
    const chart = screen.getByTestId('series-chart');
    await waitFor(() => expect(chart).toHaveAttribute('data-points', String(4 * DAYS)));
    expect(server.callsTo('GET', '/api/v1/datasets/9/series/').at(-1)!.search.getAll('id')).toEqual(['s000', 's001', 's002', 'x4999']);
  });

  it('sends a changed frequency and fill rule to the dataset', async () => {
    const server = fakeApi({
      'GET /api/v1/datasets/9/': json(DATASET),
      'GET /api/v1/datasets/9/profile/': json(PROFILE),
      'GET /api/v1/datasets/9/series/': seriesAnswer,
      'PATCH /api/v1/datasets/9/': json(DATASET),
    });
    const user = userEvent.setup();
    renderWithApp(<StatisticsPanel datasetId={9} canEdit />);
    await screen.findByTestId('series-settings');
    expect(screen.getByTestId('series-settings-save')).toBeDisabled();
    await user.click(screen.getByTestId('series-fill-rule'));
    await user.click(await screen.findByRole('option', { name: 'zero' }));
    expect(screen.getByTestId('series-settings')).toHaveTextContent('a missing value is 0');
    await user.click(screen.getByTestId('series-settings-save'));
    await waitFor(() => expect(server.callsTo('PATCH', '/api/v1/datasets/9/')).toHaveLength(1));
    expect(server.callsTo('PATCH', '/api/v1/datasets/9/')[0].body).toEqual({ frequency: 'D', fill_rule: 'zero' });
  });

  it('in zh-CN', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi({
      'GET /api/v1/datasets/9/': json(DATASET),
      'GET /api/v1/datasets/9/profile/': json(PROFILE),
      'GET /api/v1/datasets/9/series/': seriesAnswer,
    });
    renderWithApp(<StatisticsPanel datasetId={9} />);
    expect(await screen.findByTestId('series-stat-frequency')).toHaveTextContent('每天（D）');
    expect(screen.getByTestId('series-table')).toHaveTextContent('季节性');
  });
});

describe('sortSeries', () => {
  it('sorts by a summary, missing figures last, ties by id', () => {
    const rows = [seriesProfile(5), seriesProfile(3), seriesProfile(13), seriesProfile(1)];
    expect(sortSeries(rows, 'seasonal_strength', true).map((row) => row.id)).toEqual(['s003', 's013', 's001', 's005']);
    expect(sortSeries(rows, 'seasonal_strength', false).map((row) => row.id)).toEqual(['s001', 's003', 's013', 's005']);
    expect(sortSeries(rows, 'id', false).map((row) => row.id)).toEqual(['s001', 's003', 's005', 's013']);
  });
});
