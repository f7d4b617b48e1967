import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { StudyForm } from './StudyForm';

const ARCHIVE = { id: 5, name: 'quadratic', filename: 'quadratic.py', entry_point: 'quadratic.py', files: [{ path: 'quadratic.py', size_bytes: 300 }] };

function routes(post: (body: unknown) => Response) {
  return fakeApi({
    'GET /api/v1/templates/': [],
    'GET /api/v1/projects/': page([{ id: 3, name: 'Digits project', workspace: 1 }]),
    'GET /api/v1/datasets/': page([{ id: 4, name: 'Digits', task_type: 'image_classification', workspace: 1, project: 3 }]),
    'GET /api/v1/datasets/4/versions/': page([{ id: 9, name: 'V1', sample_count: 200 }]),
    'GET /api/v1/code-archives/': page([ARCHIVE]),
    'POST /api/v1/studies/': (call: { body: unknown }) => post(call.body),
  });
}

async function openCustom() {
  const user = userEvent.setup();
  await user.click(screen.getByText('My own code'));
  await screen.findByTestId('custom-study-form');
  await waitFor(() => expect(screen.getByTestId('custom-study-code')).not.toBeDisabled());
  await screen.findByRole('option', { name: 'quadratic (quadratic.py)' });
  return user;
}

describe('StudyForm, custom code source', () => {
  it('picks the code, checks the hyperparameter names and the metric locally, and sends a custom-code study', async () => {
    const server = routes(() => json({ id: 21 }, 201));
    const onCreated = vi.fn();
    renderWithApp(<StudyForm initial={{ project: 3 }} onCreated={onCreated} />);
    const user = await openCustom();

    // nothing picked, no metric: refused here, by field
    await user.click(screen.getByTestId('custom-study-submit'));
    expect(await screen.findByText('Pick the code to run.')).toBeInTheDocument();
    expect(screen.getByText('Name the metric your code reports, e.g. val_acc.')).toBeInTheDocument();
    expect(server.callsTo('POST', '/api/v1/studies/')).toHaveLength(0);

    await user.selectOptions(screen.getByTestId('custom-study-code'), '5');
    expect(screen.getByText('Leave empty to run quadratic.py.')).toBeInTheDocument();
    const name = screen.getByTestId('dim-0-name');
    await user.clear(name);
    await user.type(name, '2x');
    await user.tab();
    await user.type(screen.getByTestId('custom-study-metric'), 'score');
    await user.click(screen.getByTestId('custom-study-submit'));
    expect(await screen.findByText('2x is not a hyperparameter name: letters, digits and _, not starting with a digit.')).toBeInTheDocument();
    expect(server.callsTo('POST', '/api/v1/studies/')).toHaveLength(0);

    const renamed = screen.getByTestId('dim-0-name');
    await user.clear(renamed);
    await user.type(renamed, 'x');
    await user.tab();
    await user.clear(screen.getByTestId('dim-0-low'));
    await user.type(screen.getByTestId('dim-0-low'), '0.01');
    await user.clear(screen.getByTestId('dim-0-high'));
    await user.type(screen.getByTestId('dim-0-high'), '1');
    await user.click(screen.getByTestId('dim-add'));
    const second = screen.getByTestId('dim-1-name');
    await user.type(second, 'optimizer');
    await user.tab();
    await user.selectOptions(screen.getByTestId('dim-1-type'), 'categorical');
    const choices = screen.getByTestId('dim-1-choices');
    await user.type(choices, 'sgd, adam');
    await user.tab();
    await user.selectOptions(screen.getByTestId('custom-study-direction'), 'minimize');
    await user.selectOptions(screen.getByTestId('custom-study-dataset'), '4');
    await waitFor(() => expect(screen.getByTestId('custom-study-version')).not.toBeDisabled());
    await screen.findByRole('option', { name: /V1/ });
    await user.selectOptions(screen.getByTestId('custom-study-version'), '9');
    await user.tripleClick(screen.getByTestId('custom-study-n-trials'));
    await user.keyboard('4');
    await user.type(screen.getByTestId('custom-study-wall-time'), '2');
    await user.click(screen.getByTestId('custom-study-submit'));

    await waitFor(() => expect(onCreated).toHaveBeenCalledWith({ id: 21 }));
    const body = server.callsTo('POST', '/api/v1/studies/')[0].body as Record<string, unknown>;
    expect(body).toMatchObject({
      project: 3,
      code_archive: 5,
      dataset_version: 9,
      objective: { metric: 'score', direction: 'minimize' },
      sampler: 'tpe',
      pruner: 'median',
      n_trials: 4,
      parallelism: 1,
      limits: { wall_time_s: 120 },
      network: false,
    });
    expect(body).not.toHaveProperty('entry_point');
    expect(body.search_space).toEqual([
      { name: 'x', type: 'float', low: 0.01, high: 1, log: true },
      { name: 'optimizer', type: 'categorical', choices: ['sgd', 'adam'] },
    ]);
  }, 30_000);

  it("shows the server's refusal under the field it names", async () => {
    routes(() =>
      apiError(400, 'custom_job_limit_too_high', 'limits.memory_mb: 999,999 is over this platform\'s cap of 65,536 (SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB).', {
        'limits.memory_mb': ["999,999 is over this platform's cap of 65,536 (SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB)."],
      }),
    );
    renderWithApp(<StudyForm initial={{ project: 3, source: 'custom', codeArchive: 5 }} onCreated={vi.fn()} />);
    await screen.findByTestId('custom-study-form');
    await screen.findByRole('option', { name: 'quadratic (quadratic.py)' });
    const user = userEvent.setup();
    await user.type(screen.getByTestId('custom-study-metric'), 'val_acc');
    await user.type(screen.getByTestId('custom-study-memory'), '999999');
    await user.click(screen.getByTestId('custom-study-submit'));
    expect(await screen.findByText("999,999 is over this platform's cap of 65,536 (SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB).")).toBeInTheDocument();
    expect(screen.getByTestId('study-error')).toHaveTextContent('limits.memory_mb');
  }, 30_000);
});
