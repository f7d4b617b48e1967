import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { RunCustomJobForm } from './RunCustomJobForm';

const ARCHIVE = { id: 9, name: 'digits-cnn', entry_point: 'train.py', requirements: 'scikit-learn>=1.3\n' };

describe('RunCustomJobForm', () => {
  it('posts the run with typed hyperparameters, the archive prefilled, and opens the job', async () => {
    const api = fakeApi({ 'POST /api/v1/custom-jobs/': () => json({ id: 77, kind: 'training.custom', status: 'queued' }, 201) });
    const onStarted = vi.fn();
    renderWithApp(<RunCustomJobForm projectId={3} archive={ARCHIVE} onStarted={onStarted} />);
    const user = userEvent.setup();

    expect(screen.getByTestId('run-entry-point')).toHaveValue('train.py');
    expect(screen.getByTestId('run-requirements')).toHaveValue('scikit-learn>=1.3\n');
    await user.type(screen.getByTestId('run-hyper-name-0'), 'epochs');
    await user.type(screen.getByTestId('run-hyper-value-0'), '2');
    await user.click(screen.getByTestId('run-hyper-add'));
    await user.type(screen.getByTestId('run-hyper-name-1'), 'optimizer');
    await user.type(screen.getByTestId('run-hyper-value-1'), 'adam');
    await user.type(screen.getByTestId('run-args'), '--seed 7');
    await user.type(screen.getByTestId('run-memory'), '512');
    await user.click(screen.getByTestId('run-network'));
    await user.click(screen.getByTestId('run-submit'));

    await waitFor(() => expect(onStarted).toHaveBeenCalledWith(77));
    expect(api.callsTo('POST', '/api/v1/custom-jobs/')[0].body).toEqual({
      project: 3,
      code_archive: 9,
      entry_point: 'train.py',
      args: ['--seed', '7'],
      hyperparameters: { epochs: 2, optimizer: 'adam' },
      requirements: 'scikit-learn>=1.3\n',
      dataset_version: null,
      queue: 'cpu',
      limits: { memory_mb: 512 },
      network: true,
    });
  });

  it('refuses a hyperparameter name that is not an identifier before sending anything', async () => {
    const api = fakeApi({});
    renderWithApp(<RunCustomJobForm projectId={3} archive={ARCHIVE} onStarted={vi.fn()} />);
    const user = userEvent.setup();
    await user.type(screen.getByTestId('run-hyper-name-0'), 'learning-rate');
    expect(await screen.findByText('A letter or _ first, then letters, digits or _')).toBeInTheDocument();
    expect(screen.getByTestId('run-submit')).toBeDisabled();
    await user.clear(screen.getByTestId('run-hyper-name-0'));
    await user.type(screen.getByTestId('run-hyper-name-0'), 'learning_rate');
    expect(screen.getByTestId('run-submit')).toBeEnabled();
    expect(api.calls).toHaveLength(0);
  });

  it("shows the server's refusal naming the cap", async () => {
    fakeApi({
      'POST /api/v1/custom-jobs/': apiError(400, 'custom_job_limit_too_high', 'memory_mb 999999 is above the cap of 65536 MiB (SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB).'),
    });
    const onStarted = vi.fn();
    renderWithApp(<RunCustomJobForm projectId={3} archive={ARCHIVE} onStarted={onStarted} />);
    const user = userEvent.setup();
    await user.type(screen.getByTestId('run-memory'), '999999');
    await user.click(screen.getByTestId('run-submit'));
    expect(await screen.findByTestId('run-error')).toHaveTextContent('above the cap of 65536 MiB');
    expect(onStarted).not.toHaveBeenCalled();
  });

  it('a viewer sees why it cannot run', () => {
    fakeApi({});
    renderWithApp(<RunCustomJobForm projectId={3} archive={ARCHIVE} onStarted={vi.fn()} disabledReason="Viewers cannot run code in this workspace." />);
    expect(screen.getByTestId('run-submit')).toBeDisabled();
    expect(screen.getByText('Viewers cannot run code in this workspace.')).toBeInTheDocument();
  });
});
