import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, json } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { sessionKeys } from '../api/sessionKeys';
import { TryItPanel } from './TryItPanel';

const DEPLOYMENT = { id: 21, predict_url: '/api/v1/deployments/21/predict/', status: 'active' as const };
const ANSWER = {
  kind: 'classification_prediction',
  version: 1,
  model_version: { id: 12, name: 'V3', template: 'image_classification' },
  predictions: [
    {
      top_k: [
        { label: '3', index: 3, score: 0.91 },
        { label: '8', index: 8, score: 0.06 },
        { label: '5', index: 5, score: 0.02 },
      ],
    },
  ],
  latency_ms: 0.42,
};

type Seen = { url: string; init: RequestInit };

function stubPredict(answer: () => Response) {
  const seen: Seen[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push({ url: String(input), init: init ?? {} });
      return answer();
    }),
  );
  return seen;
}

const digit = () => new File([new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])], 'digit-3.png', { type: 'image/png' });

describe('TryItPanel', () => {
  it('pre-fills the key created in this tab, uploads the image with it and shows the top-k with scores and latency', async () => {
    URL.createObjectURL = vi.fn(() => 'blob:preview');
    URL.revokeObjectURL = vi.fn();
    sessionKeys.remember(21, { id: 1, name: 'kiosk', key: 'spd_session-key' });
    const seen = stubPredict(() => json(ANSWER));
    const user = userEvent.setup();
    const { container } = renderWithApp(<TryItPanel deployment={DEPLOYMENT} />);
    expect(screen.getByTestId('try-key')).toHaveValue('spd_session-key');
    expect(screen.getByTestId('try-submit')).toBeDisabled();

    const input = container.querySelector('input[type="file"]') as HTMLInputElement;
    await user.upload(input, digit());
    expect(await screen.findByTestId('try-preview')).toHaveAttribute('src', 'blob:preview');
    await user.click(screen.getByTestId('try-submit'));

    const result = await screen.findByTestId('try-result');
    expect(result).toHaveTextContent('V3');
    expect(screen.getByTestId('try-label-0')).toHaveAttribute('data-label', '3');
    expect(screen.getByTestId('try-label-0')).toHaveTextContent('91.0%');
    expect(screen.getByTestId('try-label-2')).toHaveTextContent('2.0%');
    expect(screen.getByTestId('try-latency')).toHaveTextContent('0.42 ms');

    expect(seen).toHaveLength(1);
    expect(seen[0].url).toBe(`${window.location.origin}/api/v1/deployments/21/predict/`);
    expect(seen[0].init.method).toBe('POST');
    expect(seen[0].init.credentials).toBe('omit');
    expect((seen[0].init.headers as Record<string, string>).Authorization).toBe('Bearer spd_session-key');
    const form = seen[0].init.body as FormData;
    expect((form.get('file') as File).name).toBe('digit-3.png');
    expect(form.get('top_k')).toBe('5');
    sessionKeys.forget(21);
  });

  it('fills the empty key field with a key created after it mounted, and releases each replaced preview', async () => {
    let made = 0;
    URL.createObjectURL = vi.fn(() => `blob:preview-${++made}`);
    URL.revokeObjectURL = vi.fn();
    const user = userEvent.setup();
    const { container, unmount } = renderWithApp(<TryItPanel deployment={DEPLOYMENT} />);
    expect(screen.getByTestId('try-key')).toHaveValue('');
    act(() => sessionKeys.remember(21, { id: 2, name: 'later', key: 'spd_later-key' }));
    expect(screen.getByTestId('try-key')).toHaveValue('spd_later-key');

    const input = container.querySelector('input[type="file"]') as HTMLInputElement;
    await user.upload(input, digit());
    expect(await screen.findByTestId('try-preview')).toHaveAttribute('src', 'blob:preview-1');
    await user.upload(input, digit());
    await waitFor(() => expect(screen.getByTestId('try-preview')).toHaveAttribute('src', 'blob:preview-2'));
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:preview-1');
    unmount();
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:preview-2');
    sessionKeys.forget(21);
  });

  it('accepts a dropped image and a pasted key, and shows a refused call with its status and message', async () => {
    URL.createObjectURL = vi.fn(() => 'blob:preview');
    URL.revokeObjectURL = vi.fn();
    stubPredict(() => apiError(401, 'key_revoked', 'This key was revoked.'));
    const user = userEvent.setup();
    const { queryClient } = renderWithApp(<TryItPanel deployment={DEPLOYMENT} />);
    queryClient.setQueryData(['auth', 'me'], { id: 1, username: 'admin' });
    expect(screen.getByTestId('try-key')).toHaveValue('');
    const dropzone = screen.getByTestId('try-dropzone');
    const file = digit();
    const { fireEvent } = await import('@testing-library/react');
    fireEvent.drop(dropzone, { dataTransfer: { files: [file] } });
    expect(await screen.findByTestId('try-file-name')).toHaveTextContent('digit-3.png');
    await user.type(screen.getByTestId('try-key'), 'spd_old');
    await user.click(screen.getByTestId('try-submit'));
    const error = await screen.findByTestId('try-error');
    expect(error).toHaveTextContent('401 key_revoked');
    expect(error).toHaveTextContent('This key was revoked.');
    expect(screen.queryByTestId('try-result')).not.toBeInTheDocument();
    // a refused deployment key is not a lost session: the user stays signed in
    expect(queryClient.getQueryData(['auth', 'me'])).toEqual({ id: 1, username: 'admin' });
  });

  it('says when over quota how long to wait', async () => {
    URL.createObjectURL = vi.fn(() => 'blob:preview');
    URL.revokeObjectURL = vi.fn();
    stubPredict(
      () =>
        new Response(JSON.stringify({ error: { code: 'quota_exceeded', message: 'Quota of 1 call per minute exceeded.', details: {} } }), {
          status: 429,
          headers: { 'Content-Type': 'application/json', 'Retry-After': '42' },
        }),
    );
    const user = userEvent.setup();
    const { container } = renderWithApp(<TryItPanel deployment={DEPLOYMENT} />);
    await user.upload(container.querySelector('input[type="file"]') as HTMLInputElement, digit());
    await user.type(screen.getByTestId('try-key'), 'spd_busy');
    await user.click(screen.getByTestId('try-submit'));
    await waitFor(() => expect(screen.getByTestId('try-error')).toHaveTextContent('retry after 42s'));
  });
});

describe('TryItPanel for text and table models', () => {
  it('sends a text as a JSON instance', async () => {
    const seen = stubPredict(() => json({ ...ANSWER, model_version: { id: 3, name: 'V1', template: 'text_classification' } }));
    const user = userEvent.setup();
    renderWithApp(<TryItPanel deployment={{ ...DEPLOYMENT, template: 'text_classification' }} />);
    await user.type(screen.getByTestId('try-text'), 'Return the square root of x.');
    await user.type(screen.getByTestId('try-key'), 'spd_text');
    await user.click(screen.getByTestId('try-submit'));
    await screen.findByTestId('try-result');
    expect(JSON.parse(seen[0].init.body as string)).toEqual({ instances: [{ text: 'Return the square root of x.' }], top_k: 5 });
    expect((seen[0].init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
  });

  it('refuses a row that is not a JSON object before calling, and shows a regression value', async () => {
    const seen = stubPredict(() => json({ kind: 'regression_prediction', version: 1, model_version: { id: 4, name: 'V1', template: 'tabular_regression' }, predictions: [{ top_k: [{ value: 42.5 }] }], latency_ms: 0.3 }));
    const user = userEvent.setup();
    renderWithApp(<TryItPanel deployment={{ ...DEPLOYMENT, template: 'tabular_regression' }} />);
    const input = screen.getByTestId('try-text');
    await user.type(input, '[[1]');
    await user.type(screen.getByTestId('try-key'), 'spd_rows');
    await user.click(screen.getByTestId('try-submit'));
    expect(await screen.findByText(/must be a JSON object/)).toBeInTheDocument();
    expect(seen).toHaveLength(0);
    await user.clear(input);
    await user.type(input, '{{"rooms": 3}');
    await user.click(screen.getByTestId('try-submit'));
    expect(await screen.findByTestId('try-value-0')).toHaveTextContent('42.5');
    expect(JSON.parse(seen[0].init.body as string)).toEqual({ instances: [{ rooms: 3 }], top_k: 5 });
  });

  it("fills in an example row from the model's columns", async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: RequestInfo | URL) => {
        const url = input instanceof Request ? input.url : String(input);
        if (url.endsWith('/api/v1/model-versions/12/')) {
          return json({
            id: 12,
            preprocessing: {
              kind: 'tabular',
              features: [
                { name: 'rooms', type: 'numeric', fill: 3.14159 },
                { name: 'city', type: 'categorical', categories: ['Bern', 'Zurich'] },
              ],
            },
          });
        }
        return apiError(404, 'not_found', url);
      }),
    );
    const user = userEvent.setup();
    renderWithApp(<TryItPanel deployment={{ ...DEPLOYMENT, template: 'tabular_classification', model_version: 12 }} />);
    await user.click(await screen.findByTestId('try-example-row'));
    expect(JSON.parse((screen.getByTestId('try-text') as HTMLTextAreaElement).value)).toEqual({ rooms: 3.142, city: 'Bern' });
  });
});
