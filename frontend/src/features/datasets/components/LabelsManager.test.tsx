import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { LabelsManager } from './LabelsManager';

const LABELS = [
  { id: 11, name: 'cat', color: '#ff0000', sample_count: 40, created_at: '2026-11-29T10:00:00Z' },
  { id: 12, name: 'kitten', color: '#00ff00', sample_count: 7, created_at: '2026-11-29T10:00:00Z' },
];

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
});
