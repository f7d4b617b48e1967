import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { SampleActivity } from '../api/activity';
import { ActivityLog } from './ActivityLog';

const LOG = '/api/v1/datasets/1/activity/';
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

function entry(fields: Partial<SampleActivity> & Pick<SampleActivity, 'id' | 'action' | 'source' | 'before' | 'after'>): SampleActivity {
  return { sample: 7, actor: 2, actor_username: 'alice', comment: '', reverts: null, can_revert: false, created_at: minutesAgo(3), ...fields };
}

const ENTRIES = [
  entry({ id: 30, action: 'label', source: 'suggestion', before: { label: null, label_name: null }, after: { label: 12, label_name: 'dog' }, can_revert: true }),
  entry({ id: 29, action: 'review', source: 'review', before: { review_status: 'unreviewed' }, after: { review_status: 'accepted' }, actor_username: 'rita', comment: 'looks right' }),
  entry({ id: 28, action: 'annotations', source: 'task', before: { status: 'unlabeled', boxes: [] }, after: { status: 'annotated', boxes: [{ label: 12, label_name: 'dog', x: 1, y: 2, width: 3, height: 4 }] } }),
];

describe('ActivityLog', () => {
  it('says who changed what, when and from where, newest first', async () => {
    const server = fakeApi({ [`GET ${LOG}`]: page(ENTRIES) });
    renderWithApp(<ActivityLog datasetId={1} sampleId={7} version={3} canEdit />);
    expect(await screen.findByTestId('activity-change-30')).toHaveTextContent('unlabeled → dog');
    expect(screen.getByTestId('activity-entry-30')).toHaveTextContent('suggestion');
    expect(screen.getByTestId('activity-entry-30')).toHaveTextContent('alice · 3 minutes ago');
    expect(screen.getByTestId('activity-change-29')).toHaveTextContent('review: accepted');
    expect(screen.getByTestId('activity-entry-29')).toHaveTextContent('looks right');
    expect(screen.getByTestId('activity-change-28')).toHaveTextContent('0 boxes → 1 box');
    expect(screen.getByTestId('activity-entry-28')).toHaveTextContent('labeling task');
    // only a change the sample still carries can be reverted (the review entry here is not current)
    expect(screen.getByTestId('activity-revert-30')).toBeEnabled();
    expect(screen.queryByTestId('activity-revert-29')).toBeNull();
    expect(screen.queryByTestId('activity-revert-28')).toBeNull();
    expect(server.callsTo('GET', LOG)[0].search.get('sample')).toBe('7');
  });

  it('reverts a review verdict the sample still carries', async () => {
    let reverted = false;
    const undo = entry({ id: 52, action: 'review', source: 'revert', before: { review_status: 'rejected' }, after: { review_status: 'unreviewed' }, reverts: 51 });
    const verdict = entry({ id: 51, action: 'review', source: 'review', before: { review_status: 'unreviewed' }, after: { review_status: 'rejected' }, can_revert: true });
    const server = fakeApi({
      [`GET ${LOG}`]: () => json(page(reverted ? [undo, { ...verdict, can_revert: false }] : [verdict])),
      [`POST ${LOG}51/revert/`]: () => {
        reverted = true;
        return json(undo);
      },
    });
    renderWithApp(<ActivityLog datasetId={1} sampleId={7} version={3} canEdit />);
    const button = await screen.findByTestId('activity-revert-51');
    expect(button).toHaveAttribute('title', 'Put back the review status from before this verdict');
    await userEvent.setup().click(button);
    expect(server.callsTo('POST', `${LOG}51/revert/`)).toHaveLength(1);
    expect(await screen.findByTestId('activity-change-52')).toHaveTextContent('review: not reviewed');
    expect(screen.getByTestId('activity-reverts-52')).toHaveTextContent('undoes review: rejected');
    expect(screen.queryByTestId('activity-revert-51')).toBeNull();
  });

  it('shows regression target changes as numbers, revertible like labels', async () => {
    fakeApi({
      [`GET ${LOG}`]: page([
        entry({ id: 41, action: 'target', source: 'suggestion', before: { target: 3.2 }, after: { target: 0.1 + 0.2 }, can_revert: true }),
        entry({ id: 40, action: 'target', source: 'task', before: { target: null }, after: { target: 3.2 } }),
      ]),
    });
    renderWithApp(<ActivityLog datasetId={1} sampleId={7} version={3} canEdit />);
    expect(await screen.findByTestId('activity-change-41')).toHaveTextContent('target 3.2 → 0.3');
    expect(screen.getByTestId('activity-change-40')).toHaveTextContent('target none → 3.2');
    expect(screen.getByTestId('activity-revert-41')).toBeEnabled();
    expect(screen.queryByTestId('activity-revert-40')).toBeNull();
  });

  it('reverts an entry, and shows the server refusing one that changed since', async () => {
    const onReverted = vi.fn();
    let reverted = false;
    const server = fakeApi({
      [`GET ${LOG}`]: () => json(page(reverted ? [entry({ id: 31, action: 'label', source: 'revert', before: { label: 12, label_name: 'dog' }, after: { label: null, label_name: null }, reverts: 30 }), ...ENTRIES] : ENTRIES)),
      [`POST ${LOG}30/revert/`]: () => {
        reverted = true;
        return json(entry({ id: 31, action: 'label', source: 'revert', before: { label: 12, label_name: 'dog' }, after: { label: null, label_name: null }, reverts: 30 }));
      },
    });
    renderWithApp(<ActivityLog datasetId={1} sampleId={7} version={3} canEdit onReverted={onReverted} />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('activity-revert-30'));
    await waitFor(() => expect(onReverted).toHaveBeenCalledTimes(1));
    expect(server.callsTo('POST', `${LOG}30/revert/`)).toHaveLength(1);
    expect(await screen.findByTestId('activity-change-31')).toHaveTextContent('dog → unlabeled');
    expect(screen.getByTestId('activity-entry-31')).toHaveAttribute('data-source', 'revert');
    expect(screen.getByTestId('activity-reverts-31')).toHaveTextContent('undoes unlabeled → dog');

    fakeApi({
      [`GET ${LOG}`]: page(ENTRIES),
      [`POST ${LOG}30/revert/`]: apiError(409, 'label_conflict', 'Sample 7 changed after this entry; nothing was reverted.'),
    });
    renderWithApp(<ActivityLog datasetId={1} sampleId={7} version={4} canEdit />);
    const buttons = await screen.findAllByTestId('activity-revert-30');
    await user.click(buttons[buttons.length - 1]);
    expect(await screen.findByTestId('activity-error')).toHaveTextContent('changed after this entry');
  });

  it('shows viewers the log without letting them revert', async () => {
    fakeApi({ [`GET ${LOG}`]: page(ENTRIES) });
    renderWithApp(<ActivityLog datasetId={1} sampleId={7} version={3} canEdit={false} />);
    expect(await screen.findByTestId('activity-revert-30')).toBeDisabled();
  });
});
