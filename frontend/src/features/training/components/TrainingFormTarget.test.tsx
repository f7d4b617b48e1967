import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TrainingForm } from './TrainingForm';
import { TEMPLATE } from './trainingFormFixtures';

const VERSIONS = [{ id: 8, dataset: 1, number: 2, name: 'V2', classes: ['cat', 'dog'], counts: {}, totals: {}, sample_count: 120 }] as never;
const BUILTIN = { name: 'edge-arm-slow', description: '', runtime: 'onnxruntime', execution_provider: 'CPUExecutionProvider', intra_op_threads: 1, inter_op_threads: 1, batch_size: 1, slowdown: 4, latency_budget_ms: null, size_budget_bytes: null };

describe('TrainingForm deployment target', () => {
  it('sends the chosen target and shows why it cannot be met under the picker', async () => {
    let refuse = true;
    const server = fakeApi({
      'GET /api/v1/templates/': [TEMPLATE],
      'GET /api/v1/backbones/': page([]),
      'GET /api/v1/projects/3/': { id: 3, name: 'Digits', workspace: 1 },
      'GET /api/v1/target-profiles/builtins/': [BUILTIN],
      'GET /api/v1/target-profiles/': page([{ ...BUILTIN, id: 5, workspace: 1, name: 'kiosk', slowdown: 2, latency_budget_ms: 0.01, builtin: false }]),
      'POST /api/v1/training-jobs/': (call: RecordedCall) =>
        refuse
          ? apiError(400, 'target_unreachable', 'No configuration meets 0.01 ms on kiosk; the smallest reached 0.4 ms.', {
              target_profile: ['No configuration meets 0.01 ms on kiosk; the smallest reached 0.4 ms.'],
            })
          : json({ id: 77, kind: 'training.run', status: 'queued', params: call.body }, 201),
    });
    const onStarted = vi.fn();
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={VERSIONS} onStarted={onStarted} />);
    const picker = await screen.findByTestId('training-target-profile');
    await waitFor(() => expect(within(picker).getAllByRole('option')).toHaveLength(3));
    expect(picker).toHaveValue('');
    const user = userEvent.setup();
    await user.selectOptions(picker, '5');
    await user.click(screen.getByTestId('training-start'));
    expect(await screen.findByText('No configuration meets 0.01 ms on kiosk; the smallest reached 0.4 ms.')).toBeInTheDocument();
    expect(screen.queryByTestId('training-error')).toBeNull();

    refuse = false;
    await user.selectOptions(screen.getByTestId('training-target-profile'), 'edge-arm-slow');
    await user.click(screen.getByTestId('training-start'));
    await waitFor(() => expect(onStarted).toHaveBeenCalled());
    const calls = server.callsTo('POST', '/api/v1/training-jobs/');
    expect(calls[0].body).toMatchObject({ target_profile: 5 });
    expect(calls[1].body).toMatchObject({ dataset_version: 8, target_profile: 'edge-arm-slow' });
  }, 20_000);
});
