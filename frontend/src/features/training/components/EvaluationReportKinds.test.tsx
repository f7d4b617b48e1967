import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import {
  REGRESSION_EVALUATION,
  REGRESSION_VERSION,
  TABULAR_CLASSIFICATION_EVALUATION,
  TABULAR_CLASSIFICATION_VERSION,
  TEXT_EVALUATION,
  TEXT_VERSION,
} from './evaluationFixtures';
import { EvaluationReport } from './EvaluationReport';

function serve(version: { id: number; name: string }, evaluation: unknown) {
  return fakeApi({
    [`GET /api/v1/model-versions/${version.id}/`]: json(version),
    [`GET /api/v1/model-versions/${version.id}/evaluation/`]: json({ id: version.id, name: version.name, evaluation }),
    'GET /api/v1/model-versions/': json(page([version])),
    'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V1' }),
  });
}

describe('EvaluationReport for regression (diabetes, LightGBM)', () => {
  it('shows MAE, RMSE and R², the residual plots, the largest errors and feature importance', async () => {
    serve(REGRESSION_VERSION, REGRESSION_EVALUATION);
    renderWithApp(<EvaluationReport modelVersionId={21} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    expect(await screen.findByTestId('eval-mae')).toHaveTextContent('35.64');
    expect(screen.getByTestId('eval-rmse')).toHaveTextContent('44.19');
    expect(screen.getByTestId('eval-r2')).toHaveTextContent('0.5904');
    expect(screen.getByTestId('eval-headline')).toHaveTextContent('test R² 0.5904 · RMSE 44.19');
    expect(screen.getByText('On 44 test rows. Residual = predicted − actual.')).toBeInTheDocument();
    expect(screen.getByTestId('eval-residual-plot')).toHaveAttribute('data-points', '44');
    expect(screen.getByTestId('eval-predicted-vs-actual')).toHaveAttribute('data-points', '44');
    expect(screen.getByTestId('eval-residual-histogram')).toHaveAttribute('data-bins', '20');
    expect(screen.getByTestId('eval-feature-importance')).toHaveAttribute('data-features', 's5,bmi,s6,bp,s2,sex,s3,s1,age,s4');
    expect(screen.getByTestId('eval-feature-importance-top')).toHaveTextContent('s5, bmi, s6');
    // the largest error: a 200 predicted as 81.66, its row's most important columns first
    const worst = screen.getByTestId('largest-error-121');
    expect(within(worst).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['200', '81.66', '-118.3', '-0.0398', '0.0046', '-0.0218', '0.0115', '-0.0185', '-0.0446']);
    const header = within(screen.getByTestId('eval-largest-errors')).getAllByRole('columnheader');
    expect(header.map((cell) => cell.textContent)).toEqual(['Actual', 'Predicted', 'Residual', 's5', 'bmi', 's6', 'bp', 's2', 'sex']);
    // nothing of a classifier's report
    expect(screen.queryByTestId('eval-accuracy')).not.toBeInTheDocument();
    expect(screen.queryByTestId('confusion-matrix')).not.toBeInTheDocument();
    expect(screen.queryByTestId('evaluation-missing')).not.toBeInTheDocument();
  });
});

describe('EvaluationReport for text classification (docstrings)', () => {
  it('lists the misclassified texts with their labels and confidence, not images', async () => {
    serve(TEXT_VERSION, TEXT_EVALUATION);
    const onFixLabels = vi.fn();
    renderWithApp(<EvaluationReport modelVersionId={23} onFixLabels={onFixLabels} onCompare={vi.fn()} />);
    expect(await screen.findByTestId('eval-accuracy')).toHaveTextContent('83.3%');
    expect(screen.getByText('On 24 test texts of 4 classes.')).toBeInTheDocument();
    const mistakes = screen.getByTestId('eval-mistakes');
    expect(within(mistakes).queryByRole('img')).not.toBeInTheDocument();
    expect(within(mistakes).getByText('The 4 misclassified texts the model was most sure of.')).toBeInTheDocument();
    const first = screen.getByTestId('mistake-49');
    expect(within(first).getAllByRole('cell').map((cell) => cell.textContent)).toEqual([
      'Implements the standard rules for accepting and returning cookies.',
      'network',
      'text',
      '88%',
    ]);
    expect(within(screen.getByTestId('eval-text-mistakes')).getAllByRole('row')).toHaveLength(5);
    expect(screen.queryByTestId('eval-feature-importance')).not.toBeInTheDocument();

    const user = userEvent.setup();
    await user.click(within(mistakes).getByTestId('mistakes-fix-labels'));
    expect(onFixLabels).toHaveBeenCalledWith(3, [49, 2, 39, 55]);

    // a confusion-matrix cell opens its texts ("text" predicted as "network": samples 2 and 39)
    await user.click(screen.getByTestId('cm-cell-3-1'));
    expect(screen.getByRole('dialog', { name: '2 texts of "text" predicted as "network"' })).toBeInTheDocument();
    const panel = await screen.findByTestId('cm-cell-samples');
    expect(within(panel).queryByRole('img')).not.toBeInTheDocument();
    expect(within(panel).getByTestId('cm-sample-2')).toHaveTextContent('Return True for ignorable character: iff `ch` is a space or tab.');
    expect(within(panel).getByTestId('cm-sample-39')).toHaveTextContent('Encodes the object input and returns a tuple');
  });
});

describe('EvaluationReport for tabular classification (wine, LightGBM)', () => {
  it('adds feature importance and lists mistaken rows by their most important columns', async () => {
    serve(TABULAR_CLASSIFICATION_VERSION, TABULAR_CLASSIFICATION_EVALUATION);
    renderWithApp(<EvaluationReport modelVersionId={22} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    expect(await screen.findByTestId('eval-accuracy')).toHaveTextContent('94.4%');
    expect(screen.getByText('On 18 test rows of 3 classes.')).toBeInTheDocument();
    expect(screen.getByTestId('cm-cell-1-2')).toHaveAttribute('data-count', '1');
    expect(screen.getByTestId('eval-feature-importance-top')).toHaveTextContent('color_intensity, flavanoids, proline');
    const mistakes = screen.getByTestId('eval-row-mistakes');
    expect(within(mistakes).getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual([
      'True',
      'Predicted',
      'Confidence',
      'color_intensity',
      'flavanoids',
      'proline',
      'alcohol',
      'malic_acid',
      'ash',
    ]);
    expect(within(screen.getByTestId('mistake-504')).getAllByRole('cell').map((cell) => cell.textContent)).toEqual([
      'class_1',
      'class_2',
      '94%',
      '5.75',
      '1.41',
      '450',
      '12.64',
      '1.36',
      '2.02',
    ]);
    expect(within(screen.getByTestId('eval-mistakes')).queryByRole('img')).not.toBeInTheDocument();
  });
});
