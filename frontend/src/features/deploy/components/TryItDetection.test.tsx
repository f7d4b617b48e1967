import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { json } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TryItPanel } from './TryItPanel';

const DEPLOYMENT = { id: 21, status: 'active' as const, template: 'object_detection' };
const ANSWER = {
  kind: 'detection_prediction',
  version: 1,
  model_version: { id: 12, name: 'V3', template: 'object_detection' },
  predictions: [
    {
      width: 128,
      height: 96,
      boxes: [
        { label: 'seven', index: 1, score: 0.93, x: 10.4, y: 20.2, width: 30, height: 40 },
        { label: 'one', index: 0, score: 0.41, x: 70, y: 8, width: 18, height: 36 },
      ],
    },
  ],
  latency_ms: 1.5,
};

describe("a detector's Try it", () => {
  it('sends the score threshold and box cap instead of top-k and draws the boxes on the image', async () => {
    URL.createObjectURL = vi.fn(() => 'blob:scene');
    URL.revokeObjectURL = vi.fn();
    const seen: RequestInit[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_input: RequestInfo | URL, init?: RequestInit) => {
        seen.push(init ?? {});
        return json(ANSWER);
      }),
    );
    const user = userEvent.setup();
    const { container } = renderWithApp(<TryItPanel deployment={DEPLOYMENT} />);
    expect(screen.queryByTestId('try-top-k')).not.toBeInTheDocument();
    const threshold = screen.getByTestId('try-score-threshold');
    await user.clear(threshold);
    await user.type(threshold, '0.4');
    const cap = screen.getByTestId('try-max-detections');
    await user.clear(cap);
    await user.type(cap, '20');

    await user.upload(container.querySelector('input[type="file"]') as HTMLInputElement, new File([new Uint8Array([137, 80, 78, 71])], 'scene.png', { type: 'image/png' }));
    await user.click(screen.getByTestId('try-submit'));

    const drawn = await screen.findByTestId('try-boxes');
    expect(drawn).toHaveAttribute('data-boxes', '2');
    expect(drawn.querySelector('img')).toHaveAttribute('src', 'blob:scene');
    expect(screen.getByTestId('try-box-count')).toHaveTextContent('2 objects found');
    expect(screen.getByTestId('try-box-0')).toHaveAttribute('data-label', 'seven');
    expect(screen.getByTestId('try-box-0')).toHaveTextContent('93.0%');
    expect(screen.getByTestId('try-box-0')).toHaveTextContent('x 10, y 20, 30×40 px');

    const form = seen[0].body as FormData;
    expect(form.get('score_threshold')).toBe('0.4');
    expect(form.get('max_detections')).toBe('20');
    expect(form.get('top_k')).toBeNull();
  });
});
