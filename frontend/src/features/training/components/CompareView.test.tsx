import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { Comparison } from '../api/modelVersions';
import { CompareView } from './CompareView';
import { REGRESSION_EVALUATION, REGRESSION_VERSION, TEXT_VERSION } from './evaluationFixtures';

describe('CompareView', () => {
  it('shows two model versions side by side with per-class deltas (b minus a)', async () => {
    const server = fakeApi({
      'GET /api/v1/model-versions/': json(page([{ id: 1, name: 'V1' }, { id: 2, name: 'V2' }])),
      'GET /api/v1/model-versions/compare/': json({
        kind: 'classification_comparison',
        version: 1,
        a: 1,
        b: 2,
        a_name: 'V1',
        b_name: 'V2',
        accuracy: { a: 0.8, b: 0.9, delta: 0.1 },
        macro_f1: { a: 0.7, b: 0.85, delta: 0.15 },
        weighted_f1: { a: 0.75, b: 0.7, delta: -0.05 },
        top_k_accuracy: { '3': { a: 0.95, b: 0.99, delta: 0.04 } },
        per_class: [
          { class: 'cat', precision: { a: 0.8, b: 0.9, delta: 0.1 }, recall: { a: 0.7, b: 0.6, delta: -0.1 }, f1: { a: 0.75, b: 0.72, delta: -0.03 }, support: { a: 10, b: 10 } },
          { class: 'owl', precision: { a: null, b: 0.5, delta: null }, recall: { a: null, b: 0.5, delta: null }, f1: { a: null, b: 0.5, delta: null }, support: { a: null, b: 4 } },
        ],
      } satisfies Comparison),
    });
    renderWithApp(<CompareView projectId={4} a={1} b={2} onChange={vi.fn()} />);
    expect(await screen.findByTestId('compare-overall-delta-accuracy')).toHaveTextContent('+10.0 pt');
    expect(screen.getByTestId('compare-overall-delta-weighted-f1')).toHaveTextContent('-5.0 pt');
    expect(screen.getByTestId('compare-overall-delta-top-3-accuracy')).toHaveTextContent('+4.0 pt');
    expect(screen.getByTestId('compare-class-f1-delta-cat')).toHaveTextContent('-3.0 pt');
    expect(screen.getByTestId('compare-class-owl')).toHaveTextContent('—');
    const [call] = server.callsTo('GET', '/api/v1/model-versions/compare/');
    expect([call.search.get('a'), call.search.get('b')]).toEqual(['1', '2']);
  });

  it('compares two regression versions by MAE, RMSE and R² from their reports', async () => {
    // V2: the same diabetes split, a better model (real V1 numbers; V2 derived from them)
    const better = { ...REGRESSION_EVALUATION, mae: 33.1, rmse: 42.5, r2: 0.62 };
    const server = fakeApi({
      'GET /api/v1/model-versions/': json(page([REGRESSION_VERSION, { ...REGRESSION_VERSION, id: 24, name: 'V2', number: 2 }])),
      'GET /api/v1/model-versions/21/evaluation/': json({ id: 21, name: 'V1', evaluation: REGRESSION_EVALUATION }),
      'GET /api/v1/model-versions/24/evaluation/': json({ id: 24, name: 'V2', evaluation: better }),
    });
    renderWithApp(<CompareView projectId={4} a={21} b={24} onChange={vi.fn()} />);
    const mae = await screen.findByTestId('compare-overall-delta-mae');
    expect(mae).toHaveTextContent('-2.539');
    expect(mae).toHaveStyle({ color: 'var(--mantine-color-teal-text)' });
    expect(screen.getByTestId('compare-overall-delta-rmse')).toHaveTextContent('-1.694');
    expect(screen.getByTestId('compare-overall-delta-r2')).toHaveTextContent('+0.0296');
    expect(screen.getByTestId('compare-overall')).toHaveTextContent('44.19');
    expect(screen.getByTestId('compare-regression-note')).toHaveTextContent('per-class scores apply to classifiers only');
    expect(screen.getByText("Deltas are B minus A, in the target's units (R² unitless).")).toBeInTheDocument();
    expect(server.callsTo('GET', '/api/v1/model-versions/compare/')).toHaveLength(0);
  });

  it('says a classifier and a regression model cannot be compared', async () => {
    const server = fakeApi({
      'GET /api/v1/model-versions/': json(page([REGRESSION_VERSION, TEXT_VERSION])),
    });
    renderWithApp(<CompareView projectId={4} a={23} b={21} onChange={vi.fn()} />);
    expect(await screen.findByTestId('compare-unavailable')).toHaveTextContent(
      'V3 is a classifier and V1 a regression model: their metrics cannot be compared.',
    );
    expect(server.callsTo('GET', '/api/v1/model-versions/compare/')).toHaveLength(0);
    expect(server.callsTo('GET', '/api/v1/model-versions/21/evaluation/')).toHaveLength(0);
  });
});
