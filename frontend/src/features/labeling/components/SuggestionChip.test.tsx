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

  it('says a suggestion from production came from which deployment, on the chip and on the labeler tile', async () => {
    const production = { ...REGRESSION, round: null, source: 'capture', deployment_name: 'digits-api', label: 12, label_name: 'cat', value: null, confidence: 0.41 };
    const { unmount } = renderWithApp(<SuggestionChip suggestion={production} testId="chip" />);
    expect(screen.getByTestId('chip')).toHaveTextContent('suggested: cat 0.41');
    expect(screen.getByTestId('chip-production')).toHaveTextContent('From production (digits-api)');
    unmount();
    renderWithApp(<SuggestionChip suggestion={{ ...production, source: 'smart_round', deployment_name: null }} testId="chip" />);
    expect(screen.queryByTestId('chip-production')).toBeNull();
  });

  it('marks a production suggestion on the labeler tile', async () => {
    fakeApi({
      'GET /api/v1/datasets/1/': json({ id: 1, task_type: 'image_classification' }),
      'GET /api/v1/datasets/1/labels/': page([{ id: 12, name: 'cat', color: '', key: '1', sample_count: 0, created_at: '2026-12-01T10:00:00Z' }]),
      'GET /api/v1/datasets/1/samples/': () =>
        json({
          ...page([sampleFixture(4, { suggestion: { ...REGRESSION, round: null, source: 'capture', deployment_name: 'digits-api', label: 12, label_name: 'cat', value: null } })]),
          counts: { total: 1, labeled: 0, unlabeled: 1, per_label: [] },
        }),
    });
    renderWithApp(<LabelingPanel datasetId={1} canEdit />);
    const tile = await screen.findByTestId('sample-tile-4');
    expect(within(tile).getByTestId('sample-suggestion-4-production')).toHaveTextContent('From production');
    expect(within(tile).getByTestId('sample-suggestion-4-production')).toHaveAttribute('aria-label', 'From production (digits-api)');
  });
});
