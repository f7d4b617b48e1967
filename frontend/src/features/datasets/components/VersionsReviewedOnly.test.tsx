import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { VersionsPanel } from './VersionsPanel';

const VERSION = {
  id: 4,
  name: 'v2',
  number: 2,
  train_ratio: 0.8,
  val_ratio: 0.1,
  test_ratio: 0.1,
  seed: 7,
  note: '',
  reviewed_only: true,
  classes: ['五'],
  counts: { train: { 五: 8 }, val: { 五: 1 }, test: { 五: 1 } },
  totals: { train: 8, val: 1, test: 1 },
  sample_count: 10,
  unlabeled_excluded: 0,
  created_at: '2026-12-05T00:00:00Z',
};

describe('a version of reviewed samples only', () => {
  it('is asked for with the switch and marked in the list', async () => {
    const versions: object[] = [];
    const server = fakeApi({
      'GET /api/v1/datasets/3/versions/': () => json(page(versions)),
      'POST /api/v1/datasets/3/versions/': () => {
        versions.push(VERSION);
        return json(VERSION, 201);
      },
    });
    const user = userEvent.setup();
    renderWithApp(<VersionsPanel datasetId={3} canEdit />);
    await screen.findByTestId('versions-empty');
    await user.click(screen.getByTestId('version-reviewed-only'));
    await user.click(screen.getByTestId('version-create-submit'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/datasets/3/versions/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/datasets/3/versions/')[0].body).toMatchObject({ reviewed_only: true, train_ratio: 0.8 });
    expect(await screen.findByTestId('version-reviewed-only-4')).toHaveTextContent('reviewed only');
  });
});
