import { screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { StatisticsPanel } from './StatisticsPanel';

// The user's order, not code-point order.
const NAMES = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九', '十', '十一'];

function statistics(unlabeled: number) {
  const perLabel = NAMES.map((name, i) => ({ id: i + 1, name, color: '', count: 50 + i }));
  const labeled = perLabel.reduce((sum, row) => sum + row.count, 0);
  return {
    total: labeled + unlabeled,
    labeled,
    unlabeled,
    per_label: perLabel,
    width: { min: 64, max: 64, mean: 64 },
    height: { min: 64, max: 64, mean: 64 },
    size_buckets: [{ max_side: 64, count: labeled + unlabeled }, { max_side: null, count: 0 }],
    common_sizes: [{ width: 64, height: 64, count: labeled + unlabeled }],
    formats: [{ format: 'JPEG', count: labeled + unlabeled }],
  };
}

describe('StatisticsPanel', () => {
  beforeEach(() => {
    // jsdom lays nothing out: give the charts' containers a size, as a 1024 px window would.
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue({ width: 460, height: 400, top: 0, left: 0, right: 460, bottom: 400, x: 0, y: 0, toJSON: () => ({}) });
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(460);
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(400);
  });
  afterEach(() => vi.restoreAllMocks());

  it('names every class in the label order, with the unlabeled samples apart from the class bars', async () => {
    fakeApi({ 'GET /api/v1/datasets/1/': json({ id: 1, task_type: 'image_classification' }), 'GET /api/v1/datasets/1/statistics/': json(statistics(5000)) });
    renderWithApp(<StatisticsPanel datasetId={1} />);
    const chart = await screen.findByTestId('class-counts-chart');
    expect(chart).toHaveAttribute('data-points', String(NAMES.length));
    // Every class name is drawn as a category tick (none skipped for room), top to bottom in the label order.
    const names = () => [...chart.querySelectorAll('.recharts-cartesian-axis-tick-value')].map((tick) => tick.textContent).filter((text) => !/^[\d,.]+$/.test(text ?? ''));
    await waitFor(() => expect(names()).toEqual(NAMES));
    expect(screen.getByTestId('unlabeled-badge')).toHaveTextContent('+ 5,000 unlabeled (not charted)');
    expect(chart.textContent).not.toContain('(unlabeled)');
  });

  it('in zh-CN', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi({ 'GET /api/v1/datasets/1/': json({ id: 1, task_type: 'image_classification' }), 'GET /api/v1/datasets/1/statistics/': json(statistics(3)) });
    renderWithApp(<StatisticsPanel datasetId={1} />);
    expect(await screen.findByTestId('class-counts-chart')).toHaveTextContent('各类别样本数');
    expect(screen.getByTestId('unlabeled-badge')).toHaveTextContent('另有 3 个未标注');
  });
});
