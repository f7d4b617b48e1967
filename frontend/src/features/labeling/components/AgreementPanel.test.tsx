import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { AgreementPanel } from './AgreementPanel';
import { agreementMatrix, kappaStrength } from './agreementMatrix';

const REPORT = {
  kind: 'agreement_report',
  version: 1,
  classes: ['五', '六'],
  overlapping_samples: 12,
  percent_agreement: 0.75,
  fleiss_kappa: 0.5,
  pairs: [
    { annotator_a: 8, annotator_b: 9, shared: 12, percent_agreement: 0.75, cohen_kappa: 0.5 },
    { annotator_a: 8, annotator_b: 10, shared: 0, percent_agreement: null, cohen_kappa: null },
  ],
  per_class: [
    { label: 0, name: '五', percent_agreement: 0.8, kappa: 0.6 },
    { label: 1, name: '六', percent_agreement: 0.7, kappa: 0.4 },
  ],
  annotators: [
    { annotator: 8, username: 'ann', assigned: 12, submitted: 12, accepted: 9, rejected: 3, rejection_rate: 0.25, per_hour: 40.5, agreement_with_others: 0.75 },
    { annotator: 9, username: 'bo', assigned: 12, submitted: 12, accepted: 12, rejected: 0, rejection_rate: 0, per_hour: 30, agreement_with_others: 0.75 },
    { annotator: 10, username: 'cy', assigned: 12, submitted: 0, accepted: 0, rejected: 0, rejection_rate: null, per_hour: null, agreement_with_others: null },
  ],
};

describe('agreement', () => {
  it("lays the pairs out as a symmetric matrix in the report's annotator order", () => {
    const matrix = agreementMatrix(REPORT);
    expect(matrix.names).toEqual(['ann', 'bo', 'cy']);
    expect(matrix.cells[0][1]).toEqual({ kappa: 0.5, agreement: 0.75, shared: 12 });
    expect(matrix.cells[1][0]).toBe(matrix.cells[0][1]);
    expect(matrix.cells[1][2]).toBeNull();
    expect(matrix.cells[0][0]).toBeNull();
    expect([null, -0.1, 0.1, 0.5, 0.9].map(kappaStrength)).toEqual(['none', 'poor', 'slight', 'moderate', 'almostPerfect']);
  });

  it('shows the overall figures, the kappa heatmap and each annotator', async () => {
    fakeApi({ 'GET /api/v1/labeling-tasks/5/agreement/': REPORT });
    renderWithApp(<AgreementPanel taskId={5} />);
    expect(await screen.findByTestId('agreement-fleiss')).toHaveTextContent('0.50');
    expect(screen.getByTestId('agreement-percent')).toHaveTextContent('75.0%');
    expect(screen.getByTestId('agreement-cell-8-9')).toHaveTextContent('0.50');
    expect(screen.getByTestId('agreement-cell-9-8')).toHaveTextContent('0.50');
    expect(screen.getByTestId('agreement-cell-8-10')).toHaveTextContent('—');
    expect(screen.getByTestId('agreement-annotator-8')).toHaveTextContent('25.0%');
    expect(screen.getByTestId('agreement-annotator-8')).toHaveTextContent('40.5');
  });
});
