import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { REGRESSION_VERSION, TEXT_VERSION } from './evaluationFixtures';
import { ModelVersionsTable } from './ModelVersionsTable';

describe('ModelVersionsTable', () => {
  it('shows each version by its template headline: R² and RMSE for regression, accuracy for classifiers', async () => {
    fakeApi({
      'GET /api/v1/model-versions/': json(page([REGRESSION_VERSION, TEXT_VERSION])),
      'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V1' }),
    });
    renderWithApp(<ModelVersionsTable projectId={4} onCompare={vi.fn()} />);
    const regression = await screen.findByTestId('model-version-accuracy-21');
    expect(regression).toHaveTextContent('R² 0.5904 · RMSE 44.19');
    expect(regression).toHaveAttribute('title', 'test MAE 35.64, RMSE 44.19, R² 0.5904');
    expect(screen.getByTestId('model-version-accuracy-23')).toHaveTextContent('83.3%');
    expect(screen.getByRole('columnheader', { name: 'Test metric' })).toBeInTheDocument();
  });

  it('names the column after the metric when every version is a regression model', async () => {
    fakeApi({
      'GET /api/v1/model-versions/': json(page([REGRESSION_VERSION])),
      'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V1' }),
    });
    renderWithApp(<ModelVersionsTable projectId={4} onCompare={vi.fn()} />);
    expect(await screen.findByRole('columnheader', { name: 'Test R² · RMSE' })).toBeInTheDocument();
  });
});
