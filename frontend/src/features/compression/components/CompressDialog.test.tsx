import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiError, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { CompressButton } from './CompressButton';
import { COMPRESSION, VERSIONS } from './compressionFixtures';

const VERSION = { id: 11, name: 'V1', project: 3, workspace: 1, template: 'image_classification' };

const BUILTINS = [{ kind: 'target_profile', version: 1, name: 'worker-cpu', slowdown: 1, latency_budget_ms: null }];
const TARGETS = page([{ id: 5, name: 'kiosk', workspace: 1, slowdown: 3, latency_budget_ms: 5 }]);

function routes(post: (body: unknown) => Response, targets: unknown = TARGETS, builtins: unknown = BUILTINS) {
  return fakeApi({
    'GET /api/v1/target-profiles/builtins/': builtins,
    'GET /api/v1/target-profiles/': targets,
    'GET /api/v1/model-versions/': page(VERSIONS),
    'POST /api/v1/model-versions/11/compress/': (call: { body: unknown }) => post(call.body),
  });
}

describe('CompressDialog', () => {
  it('sends a preset with the chosen target and teacher, then opens the compression page', async () => {
    const server = routes(() => json(COMPRESSION, 202));
    renderWithApp(<CompressButton version={VERSION} canEdit />, { route: '/model-versions/11', path: '/model-versions/:id' });
    await userEvent.click(screen.getByTestId('compress-open'));
    await userEvent.click(await screen.findByLabelText('Balanced'));
    await screen.findByRole('option', { name: 'kiosk (budget 5 ms)' });
    await userEvent.selectOptions(screen.getByTestId('compress-target'), '5');
    await screen.findByRole('option', { name: 'V3' });
    // only versions of the same template other than this one can teach
    expect(screen.queryByRole('option', { name: 'V4' })).not.toBeInTheDocument();
    expect(screen.queryByRole('option', { name: 'V1' })).not.toBeInTheDocument();
    await userEvent.selectOptions(screen.getByTestId('compress-teacher'), '13');
    await userEvent.click(screen.getByTestId('compress-submit'));
    await screen.findByTestId('elsewhere');
    expect(server.callsTo('POST', '/api/v1/model-versions/11/compress/')[0].body).toEqual({ preset: 'balanced', target_profile: '5', teacher: 13 });
  });

  it('sends a builtin target by name, the distilled preset and the tolerance as a fraction', async () => {
    const server = routes(() => json(COMPRESSION, 202));
    renderWithApp(<CompressButton version={VERSION} canEdit />);
    await userEvent.click(screen.getByTestId('compress-open'));
    await userEvent.click(await screen.findByLabelText('Distilled'));
    await screen.findByRole('option', { name: 'worker-cpu' });
    await userEvent.selectOptions(screen.getByTestId('compress-target'), 'worker-cpu');
    await userEvent.type(screen.getByRole('textbox', { name: 'Largest accepted drop (points)' }), '1');
    await userEvent.click(screen.getByTestId('compress-submit'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/model-versions/11/compress/')).toHaveLength(1));
    const body = server.callsTo('POST', '/api/v1/model-versions/11/compress/')[0].body as Record<string, unknown>;
    expect(body.target_profile).toBe('worker-cpu');
    expect(body.max_metric_drop).toBeCloseTo(0.01);
    expect(body.preset).toBe('distilled');
    expect(body.recipes).toBeUndefined();
  });

  it('sends advanced recipes, warns when "Faster" has no budget, and still works without target profiles', async () => {
    const server = routes(() => json(COMPRESSION, 202), apiError(404, 'not_found', 'no such route'), apiError(404, 'not_found', 'no such route'));
    renderWithApp(<CompressButton version={VERSION} canEdit />);
    await userEvent.click(screen.getByTestId('compress-open'));
    await userEvent.click(await screen.findByLabelText('Faster'));
    expect(await screen.findByTestId('compress-needs-budget')).toBeInTheDocument();
    expect(await screen.findByText('No target profiles: latency is measured on the worker\'s CPU.')).toBeInTheDocument();
    await userEvent.click(screen.getByTestId('compress-advanced'));
    const row = screen.getByTestId('compress-recipe-0');
    const prune = row.querySelectorAll('input')[1];
    await userEvent.type(prune, '40');
    await userEvent.click(screen.getByTestId('compress-submit'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/model-versions/11/compress/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/model-versions/11/compress/')[0].body).toEqual({ recipes: [{ name: 'int8', prune: { flops_ratio: 0.4 }, quantize: 'static' }] });
  });

  it('shows the server\'s error and stays open', async () => {
    routes(() => apiError(400, 'compression_not_supported', 'prune does not apply to a tree ensemble'));
    renderWithApp(<CompressButton version={VERSION} canEdit />);
    await userEvent.click(screen.getByTestId('compress-open'));
    await userEvent.click(screen.getByTestId('compress-submit'));
    expect(await screen.findByText('Could not start the compression')).toBeInTheDocument();
    expect(screen.getByTestId('compress-submit')).toBeInTheDocument();
  });

  it('is disabled for viewers', () => {
    fakeApi({});
    renderWithApp(<CompressButton version={VERSION} canEdit={false} />);
    expect(screen.getByTestId('compress-open')).toBeDisabled();
  });
});
