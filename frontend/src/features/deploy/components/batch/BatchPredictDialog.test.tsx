import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiError, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { BatchPredictButton } from './BatchPredictDialog';
import { BATCH } from './fixtures';

const VERSION = { id: 12, name: 'V3', project: 4, dataset: 3, dataset_version: 5, template: 'image_classification' };

function routes(extra: Record<string, unknown> = {}) {
  return fakeApi({
    'GET /api/v1/datasets/': page([{ id: 3, name: 'digits' }]),
    'GET /api/v1/datasets/3/versions/': page([{ id: 5, name: 'digits v2', dataset: 3 }]),
    'POST /api/v1/batch-predictions/': () => json({ ...BATCH, status: 'queued', summary: null, files: [] }, 201),
    ...extra,
  });
}

describe('BatchPredictButton', () => {
  it("starts a batch on the model's own dataset version, test split by default, with top-k and formats", async () => {
    const server = routes();
    const user = userEvent.setup();
    renderWithApp(<BatchPredictButton version={VERSION} />);
    await user.click(screen.getByTestId('batch-predict'));
    await waitFor(() => expect(screen.getByTestId('batch-version')).toHaveValue('digits v2'));
    await user.clear(screen.getByTestId('batch-top-k'));
    await user.type(screen.getByTestId('batch-top-k'), '3');
    await user.click(screen.getByTestId('batch-predict-submit'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/batch-predictions/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/batch-predictions/')[0].body).toEqual({
      model_version: 12,
      top_k: 3,
      formats: ['jsonl', 'csv'],
      source: 'dataset_version',
      dataset_version: 5,
      split: 'test',
    });
  });

  it('predicts a whole dataset from a deployment (recorded), and shows the server error', async () => {
    const server = routes({ 'POST /api/v1/batch-predictions/': apiError(400, 'dataset_empty', 'The dataset has no samples.') });
    const user = userEvent.setup();
    renderWithApp(<BatchPredictButton version={{ id: 12, name: 'V3', project: 4, template: 'image_classification' }} deploymentId={7} />);
    await user.click(screen.getByTestId('batch-predict'));
    await user.click(within(await screen.findByTestId('batch-source')).getByText('Whole dataset'));
    expect(screen.queryByTestId('batch-version')).not.toBeInTheDocument();
    expect(screen.getByTestId('batch-predict-submit')).toBeDisabled();
    await user.click(screen.getByTestId('batch-dataset'));
    await user.click(await screen.findByRole('option', { name: 'digits', hidden: true }));
    await user.click(screen.getByTestId('batch-format-jsonl'));
    await user.click(screen.getByTestId('batch-predict-submit'));
    expect(await screen.findByTestId('batch-predict-error')).toHaveTextContent('The dataset has no samples.');
    expect(server.callsTo('POST', '/api/v1/batch-predictions/')[0].body).toEqual({
      model_version: 12,
      deployment: 7,
      top_k: 5,
      formats: ['csv'],
      source: 'dataset',
      dataset: 3,
    });
  });

  it('ticks Parquet for a table upload, and asks no top-k of a regression model', async () => {
    routes();
    const user = userEvent.setup();
    renderWithApp(<BatchPredictButton version={{ id: 30, name: 'V1', project: 4, template: 'tabular_regression' }} />);
    await user.click(screen.getByTestId('batch-predict'));
    await user.click(within(await screen.findByTestId('batch-source')).getByText('Upload a file'));
    expect(screen.getByTestId('batch-format-parquet')).not.toBeChecked();
    expect(screen.queryByTestId('batch-top-k')).not.toBeInTheDocument(); // regression: no classes
    const input = document.querySelector('input[type="file"]') as HTMLInputElement;
    await user.upload(input, new File(['alcohol,acidity\n1,2\n'], 'wine.csv', { type: 'text/csv' }));
    await waitFor(() => expect(screen.getByTestId('batch-format-parquet')).toBeChecked());
    expect(screen.getByTestId('batch-format-csv')).toBeChecked();
  });

  it('is disabled for a viewer, with the reason', () => {
    routes();
    renderWithApp(<BatchPredictButton version={VERSION} canEdit={false} />);
    expect(screen.getByTestId('batch-predict')).toBeDisabled();
  });
});
