import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { LabelsManager } from './LabelsManager';

const LABELS = [
  { id: 11, name: 'cat', color: '#ff0000', position: 0, shortcut: '', key: '1', sample_count: 40, created_at: '2026-11-29T10:00:00Z' },
  { id: 12, name: 'kitten', color: '#00ff00', position: 1, shortcut: '', key: '2', sample_count: 7, created_at: '2026-11-29T10:00:00Z' },
];

const CHINESE = ['零', '一', '二', '三'].map((name, position) => ({
  id: 20 + position,
  name,
  color: '',
  position,
  shortcut: '',
  key: null,
  sample_count: 1,
  created_at: '2026-12-01T10:00:00Z',
}));

const reorderBodies = (server: ReturnType<typeof fakeApi>) =>
  server.callsTo('POST', '/api/v1/datasets/1/labels/reorder/').map((call) => (call.body as { label_ids: number[] }).label_ids);

describe('LabelsManager', () => {
  it('says how many samples a delete unlabels (dry run) before deleting', async () => {
    const server = fakeApi({
      'DELETE /api/v1/datasets/1/labels/11/': (call: RecordedCall) =>
        json({ label: 11, affected_samples: 42, dry_run: call.search.get('dry_run') === 'true' }),
    });
    renderWithApp(<LabelsManager datasetId={1} labels={LABELS} canEdit />);
    const user = userEvent.setup();
    await user.click(screen.getByTestId('label-menu-11'));
    await user.click(await screen.findByTestId('label-delete-11'));
    expect(await screen.findByTestId('label-action-impact')).toHaveTextContent('Deleting "cat" makes 42 samples unlabeled.');
    expect(server.callsTo('DELETE', '/api/v1/datasets/1/labels/11/').map((call) => call.search.get('dry_run'))).toEqual(['true']);

    await user.click(screen.getByTestId('label-action-confirm'));
    await waitFor(() => expect(server.callsTo('DELETE', '/api/v1/datasets/1/labels/11/')).toHaveLength(2));
    expect(server.callsTo('DELETE', '/api/v1/datasets/1/labels/11/')[1].search.get('dry_run')).toBe('false');
  });

  it('merges after showing how many samples move', async () => {
    const server = fakeApi({
      'POST /api/v1/datasets/1/labels/12/merge/': (call: RecordedCall) => {
        const body = call.body as { into: number; dry_run: boolean };
        return json({ label: 12, into: body.into, affected_samples: 7, dry_run: body.dry_run });
      },
    });
    renderWithApp(<LabelsManager datasetId={1} labels={LABELS} canEdit />);
    const user = userEvent.setup();
    await user.click(screen.getByTestId('label-menu-12'));
    await user.click(await screen.findByTestId('label-merge-12'));
    await user.click(await screen.findByTestId('label-merge-target'));
    await user.click(await screen.findByRole('option', { name: 'cat', hidden: true }));
    expect(await screen.findByTestId('label-action-impact')).toHaveTextContent('7 samples will move from "kitten" to "cat"');
    await user.click(screen.getByTestId('label-action-confirm'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/datasets/1/labels/12/merge/')).toHaveLength(2));
    expect(server.callsTo('POST', '/api/v1/datasets/1/labels/12/merge/').map((call) => call.body)).toEqual([
      { into: 11, dry_run: true },
      { into: 11, dry_run: false },
    ]);
  });

  it('renames, saying how many samples change', async () => {
    const server = fakeApi({ 'PATCH /api/v1/datasets/1/labels/11/': json({ ...LABELS[0], name: 'feline' }) });
    renderWithApp(<LabelsManager datasetId={1} labels={LABELS} canEdit />);
    const user = userEvent.setup();
    await user.click(screen.getByTestId('label-menu-11'));
    await user.click(await screen.findByTestId('label-rename-11'));
    expect(await screen.findByTestId('label-action-impact')).toHaveTextContent('This changes the label of 40 samples.');
    await user.clear(screen.getByTestId('label-rename-input'));
    await user.type(screen.getByTestId('label-rename-input'), 'feline');
    await user.click(screen.getByTestId('label-action-confirm'));
    await waitFor(() => expect(server.callsTo('PATCH', '/api/v1/datasets/1/labels/11/')).toHaveLength(1));
    expect(server.callsTo('PATCH', '/api/v1/datasets/1/labels/11/')[0].body).toEqual({ name: 'feline' });
  });

  it('reorders with the up/down buttons, sending every label id in the new order', async () => {
    const server = fakeApi({ 'POST /api/v1/datasets/1/labels/reorder/': json(CHINESE) });
    renderWithApp(<LabelsManager datasetId={1} labels={CHINESE} canEdit />);
    const user = userEvent.setup();
    expect(screen.getByTestId('label-key-20')).toHaveTextContent('1');
    expect(screen.getByTestId('label-up-20')).toBeDisabled();
    expect(screen.getByTestId('label-up-20').closest('[data-disabled-reason]')).toHaveAttribute('data-disabled-reason', 'Already the first label.');
    await user.click(screen.getByTestId('label-down-20'));
    await waitFor(() => expect(reorderBodies(server)).toEqual([[21, 20, 22, 23]]));
    await user.click(screen.getByTestId('label-up-23'));
    await waitFor(() => expect(reorderBodies(server)).toHaveLength(2));
    expect(reorderBodies(server)[1]).toEqual([20, 21, 23, 22]);
  });

  it('reorders by dragging a row onto another', async () => {
    const server = fakeApi({ 'POST /api/v1/datasets/1/labels/reorder/': json(CHINESE) });
    renderWithApp(<LabelsManager datasetId={1} labels={CHINESE} canEdit />);
    const data = new Map<string, string>();
    const dataTransfer = { setData: (type: string, value: string) => data.set(type, value), getData: (type: string) => data.get(type) ?? '', effectAllowed: '', dropEffect: '' };
    expect(screen.getByTestId('label-row-23')).toHaveAttribute('draggable', 'true');
    fireEvent.dragStart(screen.getByTestId('label-row-23'), { dataTransfer });
    fireEvent.dragOver(screen.getByTestId('label-row-20'), { dataTransfer });
    fireEvent.drop(screen.getByTestId('label-row-20'), { dataTransfer });
    await waitFor(() => expect(reorderBodies(server)).toEqual([[23, 20, 21, 22]]));
  });

  it('sets a key: one character, not a reserved one, sent lower-cased', async () => {
    const server = fakeApi({ 'PATCH /api/v1/datasets/1/labels/22/': json({ ...CHINESE[2], shortcut: 'q', key: 'q' }) });
    renderWithApp(<LabelsManager datasetId={1} labels={CHINESE} canEdit />);
    const user = userEvent.setup();
    await user.click(screen.getByTestId('label-menu-22'));
    await user.click(await screen.findByTestId('label-set-key-22'));
    const input = await screen.findByTestId('label-key-input');
    await user.type(input, '/');
    expect(screen.getByTestId('label-action-confirm')).toBeDisabled();
    await user.clear(input);
    await user.type(input, 'Q');
    await user.click(screen.getByTestId('label-action-confirm'));
    await waitFor(() => expect(server.callsTo('PATCH', '/api/v1/datasets/1/labels/22/')).toHaveLength(1));
    expect(server.callsTo('PATCH', '/api/v1/datasets/1/labels/22/')[0].body).toMatchObject({ shortcut: 'q' });
  });
});
