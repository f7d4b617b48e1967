import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { ReviewPanel } from './ReviewPanel';
import { answerVotes, reviewRequest } from './reviewForm';
import { item, LABELS } from './tasksFixtures';

const NAMES = new Map(LABELS.map((label) => [label.id, { name: label.name, color: label.color }]));

describe('review requests', () => {
  it('refuses a rejection without a comment and sends the chosen answer with an accept', () => {
    expect(reviewRequest([4], 'reject', { comment: '   ' })).toEqual({ error: 'commentRequired' });
    expect(reviewRequest([], 'accept')).toEqual({ error: 'noItems' });
    expect(reviewRequest([4, 5], 'reject', { comment: ' a six ' })).toEqual({ body: { items: [4, 5], verdict: 'reject', comment: 'a six' } });
    expect(reviewRequest([4], 'accept', { label: 32 })).toEqual({ body: { items: [4], verdict: 'accept', label: 32 } });
  });

  it('counts the answers: the majority first, ties in the order they were submitted', () => {
    expect(answerVotes(item(1, [[8, 'ann', 32], [9, 'bo', 31], [10, 'cy', 32]]))).toEqual([
      { label: 32, votes: 2 },
      { label: 31, votes: 1 },
    ]);
    expect(answerVotes(item(2, [[8, 'ann', 32], [9, 'bo', 31], [10, 'cy', null]])).map((vote) => vote.label)).toEqual([32, 31]);
  });
});

describe('ReviewPanel', () => {
  it('rejects an item only with a comment, and accepts the selected ones together', async () => {
    const server = fakeApi({
      'GET /api/v1/labeling-tasks/5/items/': page([item(1, [[8, 'ann', 31], [9, 'bo', 32]]), item(2, [[8, 'ann', 32], [9, 'bo', 32]]), item(3, [[8, 'ann', 31], [9, 'bo', 31]])]),
      'POST /api/v1/labeling-tasks/5/review/': json({ reviewed: 1, skipped: [] }),
    });
    const user = userEvent.setup();
    renderWithApp(<ReviewPanel taskId={5} datasetId={3} labels={NAMES} canReview />);
    expect(await screen.findByTestId('review-answer-10')).toHaveTextContent('ann五');
    expect(screen.getByTestId('review-answer-11')).toHaveTextContent('bo六');
    expect(server.callsTo('GET', '/api/v1/labeling-tasks/5/items/')[0].search.get('review')).toBe('pending');

    // Reject without a comment: the reviewer is told, nothing is sent.
    await user.click(screen.getByTestId('review-reject-1'));
    await user.click(screen.getByTestId('review-reject-confirm-1'));
    expect(screen.getByTestId('review-error-1')).toHaveTextContent('A rejection needs a comment');
    expect(server.callsTo('POST', '/api/v1/labeling-tasks/5/review/')).toHaveLength(0);
    await user.click(screen.getByTestId('review-comment-input-1'));
    await user.paste('Look again: the loop is closed');
    await user.click(screen.getByTestId('review-reject-confirm-1'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/labeling-tasks/5/review/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/labeling-tasks/5/review/')[0].body).toEqual({ items: [1], verdict: 'reject', comment: 'Look again: the loop is closed' });

    // The annotators disagree on item 1: the accept names the answer picked (the first submitted by default).
    expect(screen.getByTestId('review-winner-1')).toHaveValue('五 × 1');
    await user.click(screen.getByTestId('review-select-2'));
    await user.click(screen.getByTestId('review-select-3'));
    expect(screen.getByTestId('review-bulk')).toHaveTextContent('Selected: 2');
    await user.click(screen.getByTestId('review-bulk-reject'));
    expect(screen.getByTestId('review-bulk-error')).toHaveTextContent('A rejection needs a comment');
    await user.click(screen.getByTestId('review-bulk-accept'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/labeling-tasks/5/review/')).toHaveLength(2));
    expect(server.callsTo('POST', '/api/v1/labeling-tasks/5/review/')[1].body).toEqual({ items: [2, 3], verdict: 'accept' });
  });

  it("draws each annotator's boxes when several answered a detection sample", async () => {
    const boxes = (label: string, x: number) => ({ status: 'annotated', boxes: [{ label, x, y: 1, width: 3, height: 3 }] });
    const detection = item(4, [[8, 'ann', null], [9, 'bo', null]]);
    const answered = {
      ...detection,
      assignments: detection.assignments.map((assignment, index) => ({
        ...assignment,
        status: 'submitted' as const,
        answer: boxes(index === 0 ? '五' : '六', index),
        submitted_at: `2026-12-05T00:0${index}:00Z`,
      })),
    };
    fakeApi({ 'GET /api/v1/labeling-tasks/5/items/': page([answered]) });
    renderWithApp(<ReviewPanel taskId={5} datasetId={3} labels={NAMES} canReview />);
    expect(await screen.findByTestId('review-answer-40')).toHaveTextContent('Boxes (1): 五');
    expect(screen.getByTestId('review-answer-41')).toHaveTextContent('Boxes (1): 六');
    // the sample, then one picture per answer with its boxes
    expect(screen.getByTestId('review-item-4').querySelectorAll('img')).toHaveLength(3);
    expect(screen.queryByTestId('review-winner-4')).not.toBeInTheDocument();
  });
});
