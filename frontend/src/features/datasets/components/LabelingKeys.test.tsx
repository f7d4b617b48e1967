import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { labelKeys, PALETTE } from './labelKeys';
import { LabelingPanel } from './LabelingPanel';
import { sampleFixture } from './sampleFixture';

// Eleven classes named in Chinese, in the user's order (not code-point order, which is 一 七 三 九 二 五 八 六 十 四 零).
const NAMES = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九', '十'];
const LABELS = NAMES.map((name, position) => ({
  id: 100 + position,
  name,
  color: '',
  position,
  shortcut: '',
  key: null,
  sample_count: 0,
  created_at: '2026-12-01T10:00:00Z',
}));

function sample(id: number) {
  return sampleFixture(id);
}

function server(labels: typeof LABELS) {
  const samples = [1, 2, 3, 4].map(sample);
  return fakeApi({
    'GET /api/v1/datasets/1/labels/': page(labels),
    'GET /api/v1/datasets/1/samples/': json({
      count: samples.length,
      next: null,
      previous: null,
      counts: { total: samples.length, labeled: 0, unlabeled: samples.length, per_label: labels.map((label) => ({ id: label.id, name: label.name, color: label.color, count: 0 })) },
      results: samples,
    }),
    ...Object.fromEntries(
      samples.map((item) => [
        `PATCH /api/v1/datasets/1/samples/${item.id}/`,
        (call: RecordedCall) => {
          const body = call.body as { label: number | null };
          return json({ ...item, label: body.label, label_name: labels.find((label) => label.id === body.label)?.name ?? null, label_version: 1 });
        },
      ]),
    ),
    'GET /api/v1/datasets/1/': json({ id: 1 }),
  });
}

const patched = (api: ReturnType<typeof server>, id: number) => api.callsTo('PATCH', `/api/v1/datasets/1/samples/${id}/`).map((call) => (call.body as { label: number }).label);

describe('label keys', () => {
  it('follow the labels in order: 1-9, then 0, then letters skipping chosen keys', () => {
    const keys = labelKeys(LABELS.map((label) => (label.name === '三' ? { ...label, shortcut: 'a' } : label)));
    expect(NAMES.map((_, i) => keys.get(100 + i))).toEqual(['1', '2', '3', 'a', '4', '5', '6', '7', '8', '9', '0']);
    const many = labelKeys(Array.from({ length: 40 }, (_, id) => ({ id, shortcut: '' })));
    expect(many.get(10)).toBe('a');
    expect(many.get(35)).toBe('z');
    expect(many.get(36)).toBeNull();
    expect(new Set(PALETTE).size).toBe(20);
  });

  it('in the labeler: every one of eleven Chinese labels has a key in the user order, 零 included', async () => {
    const api = server(LABELS);
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('sample-tile-1'));
    await screen.findByTestId('assign-label-110');
    const shown = LABELS.map((label) => screen.getByTestId(`assign-label-${label.id}`));
    expect(shown.map((button) => button.getAttribute('data-key'))).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', 'a']);
    expect(shown[0]).toHaveTextContent('1 · 零');
    expect(shown[10]).toHaveTextContent('A · 十');

    await user.keyboard('1');
    await waitFor(() => expect(patched(api, 1)).toEqual([100]));
    await user.keyboard('0');
    await waitFor(() => expect(patched(api, 2)).toEqual([109]));
    await user.keyboard('A');
    await waitFor(() => expect(patched(api, 3)).toEqual([110]));
    await user.keyboard('{ArrowLeft}{Backspace}');
    await waitFor(() => expect(patched(api, 3)).toEqual([110, null]));
  });

  it('a chosen key wins, and the labels keep the order the server gives (not sorted by name)', async () => {
    const reordered = [LABELS[3], LABELS[0], { ...LABELS[1], shortcut: 'x' }, LABELS[2]].map((label, position) => ({ ...label, position }));
    const api = server(reordered);
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('sample-tile-1'));
    await screen.findByTestId('assign-label-103');
    const names = [...screen.getByTestId('sample-preview').querySelectorAll('[data-testid^="assign-label-"]')].map((button) => button.textContent);
    expect(names).toEqual(['1 · 三', '2 · 零', 'X · 一', '3 · 二']);
    await user.keyboard('x');
    await waitFor(() => expect(patched(api, 1)).toEqual([101]));
    await user.keyboard('3');
    await waitFor(() => expect(patched(api, 2)).toEqual([102]));
  });

  it('speaks Chinese in zh-CN', async () => {
    await i18n.changeLanguage('zh-CN');
    server(LABELS);
    renderWithApp(<LabelingPanel datasetId={1} canEdit={false} />);
    await waitFor(() => expect(screen.getByTestId('labeling-progress')).toHaveTextContent('已标注 0 / 4'));
    expect(screen.getByTestId('labeling-help')).toHaveTextContent('取消标注');
    expect(await screen.findByTestId('labels-read-only')).toHaveTextContent('查看者');
    expect(screen.getByTestId('labels-manager')).toHaveTextContent('标签');
  });
});
