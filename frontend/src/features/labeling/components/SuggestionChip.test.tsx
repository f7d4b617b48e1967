import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { LabelingPanel } from '@/features/datasets/components/LabelingPanel';
import { sampleFixture } from '@/features/datasets/components/sampleFixture';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { SuggestionChip } from './SuggestionChip';

const REGRESSION = { id: 601, round: 3, label: null, label_name: null, confidence: 0.8, boxes: [], value: 3.2 };

describe('SuggestionChip', () => {
  it('shows a regression suggestion as its value: "≈ 3.2" on a tile, the full sentence for readers', () => {
    renderWithApp(<SuggestionChip suggestion={REGRESSION} testId="chip" compact />);
    expect(screen.getByTestId('chip')).toHaveTextContent('≈ 3.2 0.80');
    expect(screen.getByTestId('chip')).toHaveAttribute('aria-label', 'suggested: 3.2 0.80');
  });

  it('shows a classification suggestion by its label, not a value', () => {
    renderWithApp(<SuggestionChip suggestion={{ ...REGRESSION, label: 12, label_name: 'cat', value: null }} testId="chip" compact />);
    expect(screen.getByTestId('chip')).toHaveTextContent('≈ cat 0.80');
  });

  it('puts the suggested value on the tile of an unlabeled row in the labeler', async () => {
    fakeApi({
      'GET /api/v1/datasets/1/': json({ id: 1, task_type: 'tabular_regression' }),
      'GET /api/v1/datasets/1/labels/': page([]),
      'GET /api/v1/datasets/1/samples/': () =>
        json({ ...page([sampleFixture(4, { suggestion: { ...REGRESSION, value: 1234.5678 } }), sampleFixture(5, { suggestion: null })]), counts: { total: 2, labeled: 0, unlabeled: 2, per_label: [] } }),
    });
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    const tile = await screen.findByTestId('sample-tile-4');
    expect(within(tile).getByTestId('sample-suggestion-4')).toHaveTextContent('≈ 1,234.568 0.80');
    expect(within(screen.getByTestId('sample-tile-5')).queryByTestId('sample-suggestion-5')).toBeNull();
  });
});
