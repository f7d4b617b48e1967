import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithApp } from '@/test/render';
import type { SubmitBody } from '../api/assignments';
import { AssignmentLabeler } from './AssignmentLabeler';
import { submitBody } from './AssignmentLabelerLogic';
import { assignment } from './tasksFixtures';

// Konva needs a 2D canvas context, which jsdom has not: the canvas is a button that reports a drawn box
// (the canvas itself runs in the browser tests).
vi.mock('@/features/datasets', () => ({
  BoxCanvas: ({ drawLabel, onCreate }: { drawLabel: string | null; onCreate: (rect: { x: number; y: number; width: number; height: number }) => void }) => (
    <button data-testid="canvas-stand-in" data-draw-label={drawLabel ?? ''} onClick={() => onCreate({ x: 1, y: 2, width: 4, height: 3 })} />
  ),
}));

describe('the answer an assignment submits', () => {
  it('takes the shape of the task', () => {
    expect(submitBody('image_classification', { label: 31 })).toEqual({ label: 31 });
    expect(submitBody('text_classification', { label: null })).toBeNull();
    expect(submitBody('tabular_regression', { target: 2.5 })).toEqual({ target: 2.5 });
    expect(submitBody('object_detection', { boxes: [] })).toBeNull();
    expect(submitBody('object_detection', { boxes: [], noObjects: true })).toEqual({ status: 'no_objects', boxes: [] });
  });

  it('draws boxes with the label its key picks and submits them (detection)', () => {
    const sent: SubmitBody[] = [];
    const detection = assignment(7, 'rejected', 1, {
      task_type: 'object_detection',
      task: { id: 5, name: 'Boxes', instructions: '', status: 'open', dataset: 3, task_type: 'object_detection' },
      answer: null,
    });
    renderWithApp(<AssignmentLabeler assignment={detection} progress={{ done: 0, total: 1 }} submitting={false} error={null} onSubmit={(body) => sent.push(body)} />);
    expect(screen.getByTestId('assignment-comment')).toHaveTextContent('That is a six');
    expect(screen.getByTestId('assignment-submit')).toBeDisabled();
    fireEvent.keyDown(window, { key: '2' });
    expect(screen.getByTestId('canvas-stand-in')).toHaveAttribute('data-draw-label', '六');
    fireEvent.click(screen.getByTestId('canvas-stand-in'));
    expect(screen.getByTestId('assignment-box-count')).toHaveTextContent('Boxes: 1');
    expect(screen.getByTestId('assignment-no-objects')).toBeDisabled();
    fireEvent.click(screen.getByTestId('assignment-submit'));
    expect(sent).toEqual([{ status: 'annotated', boxes: [{ label: '六', x: 1, y: 2, width: 4, height: 3 }] }]);
  });
});
