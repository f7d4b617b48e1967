import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json, page, type RecordedCall } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TrainingForm } from './TrainingForm';
import { TEMPLATE } from './trainingFormFixtures';

const VERSIONS = [{ id: 8, dataset: 1, number: 2, name: 'V2', classes: ['cat', 'dog'], counts: {}, totals: {}, sample_count: 120 }] as never;

describe('TrainingForm processes', () => {
  it('sends processes from the advanced settings and shows the server refusing it there', async () => {
    let refuse = true;
    const server = fakeApi({
      'GET /api/v1/templates/': [TEMPLATE],
      'GET /api/v1/backbones/': page([]),
      'GET /api/v1/projects/3/': { id: 3, name: 'Digits', workspace: 1 },
      'GET /api/v1/target-profiles/builtins/': [],
      'GET /api/v1/target-profiles/': page([]),
      'POST /api/v1/training-jobs/': (call: RecordedCall) =>
        refuse
          ? apiError(400, 'invalid', 'processes must be between 1 and 4 (SAMPAN_MAX_PROCESSES); got 9.', {
              processes: ['processes must be between 1 and 4 (SAMPAN_MAX_PROCESSES); got 9.'],
            })
          : json({ id: 78, kind: 'training.run', status: 'queued', params: call.body }, 201),
    });
    const onStarted = vi.fn();
    renderWithApp(<TrainingForm taskType="image_classification" projectId={3} versions={VERSIONS} onStarted={onStarted} />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('advanced-settings-toggle'));
    const input = await screen.findByTestId('training-processes');
    expect(input).toHaveValue('1');
    await user.clear(input);
    await user.type(input, '9');
    await user.click(screen.getByTestId('training-start'));
    expect(await screen.findByText('processes must be between 1 and 4 (SAMPAN_MAX_PROCESSES); got 9.')).toBeInTheDocument();
    expect(screen.queryByTestId('training-error')).toBeNull();

    refuse = false;
    await user.clear(screen.getByTestId('training-processes'));
    await user.type(screen.getByTestId('training-processes'), '2');
    await user.click(screen.getByTestId('training-start'));
    await waitFor(() => expect(onStarted).toHaveBeenCalled());
    const calls = server.callsTo('POST', '/api/v1/training-jobs/');
    expect(calls[0].body).toMatchObject({ processes: 9 });
    expect(calls[1].body).toMatchObject({ dataset_version: 8, processes: 2 });
  }, 20_000);
});
