import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { CompareView } from './CompareView';

describe('CompareView', () => {
  it('shows two model versions side by side with per-class deltas (b minus a)', async () => {
    const server = fakeApi({
      'GET /api/v1/model-versions/': json(page([{ id: 1, name: 'V1' }, { id: 2, name: 'V2' }])),
      'GET /api/v1/model-versions/compare/': json({
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
      }),
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
});
