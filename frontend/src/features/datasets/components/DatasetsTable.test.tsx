import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { DatasetsTable } from './DatasetsTable';

const BASE = { workspace: 1, project: 2, description: '', schema: {}, created_by: 'admin', created_at: '2026-12-05T07:00:00Z' };

describe('DatasetsTable', () => {
  it('shows labeling progress for labeled data and none for time series, whose observations are not labeled', async () => {
    fakeApi({
      'GET /api/v1/datasets/': json(
        page([
          { ...BASE, id: 1, name: 'flowers', task_type: 'image_classification', sample_count: 10, labeled_count: 3, label_count: 2 },
          { ...BASE, id: 2, name: 'stores', task_type: 'time_series_forecasting', sample_count: 504, labeled_count: 0, label_count: 0 },
        ]),
      ),
    });
    renderWithApp(<DatasetsTable projectId={2} />);
    const images = await screen.findByTestId('dataset-row-1');
    expect(images).toHaveTextContent('3 / 10');
    const series = screen.getByTestId('dataset-row-2');
    expect(within(series).getByText('Time-series forecasting')).toBeInTheDocument();
    expect(series).not.toHaveTextContent('0 / 504');
    expect(within(series).getAllByText('—')).toHaveLength(2);
  });
});
