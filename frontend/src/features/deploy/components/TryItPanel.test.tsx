import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { apiError, json } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { ModelVersionTryPanel, TryItPanel } from './TryItPanel';

const DEPLOYMENT = { id: 21, status: 'active' as const };
const VERSION = { id: 12, name: 'V3', template: 'image_classification' };
const scores = (label: string) => [
  { label, index: Number(label), score: 0.91 },
  { label: '8', index: 8, score: 0.06 },
  { label: '5', index: 5, score: 0.02 },
];
const ANSWER = {
  kind: 'classification_prediction',
  version: 1,
  model_version: { id: 12, name: 'V3', template: 'image_classification' },
  predictions: [{ top_k: scores('3') }],
  latency_ms: 0.42,
};

type Seen = { url: string; init: RequestInit };

function stubTry(answer: () => Response) {
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

const digit = (name = 'digit-3.png') => new File([new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])], name, { type: 'image/png' });

describe("the deployment's Try it", () => {
  it('needs no key: it calls the session-authenticated try route with the CSRF token and shows the top-k', async () => {
    URL.createObjectURL = vi.fn(() => 'blob:preview');
    URL.revokeObjectURL = vi.fn();
    document.cookie = 'csrftoken=csrf-123';
    const seen = stubTry(() => json(ANSWER));
    const user = userEvent.setup();
    const { container } = renderWithApp(<TryItPanel deployment={DEPLOYMENT} />);
    expect(screen.queryByLabelText(/key/i)).not.toBeInTheDocument();
    expect(screen.getByTestId('try-no-key')).toHaveTextContent('needs no key');
    expect(screen.getByTestId('try-submit')).toBeDisabled();

    await user.upload(container.querySelector('input[type="file"]') as HTMLInputElement, digit());
    expect(await screen.findByTestId('try-preview')).toHaveAttribute('src', 'blob:preview');
    await user.click(screen.getByTestId('try-submit'));

    expect(await screen.findByTestId('try-result')).toHaveTextContent('V3');
    expect(screen.getByTestId('try-label-0')).toHaveAttribute('data-label', '3');
    expect(screen.getByTestId('try-label-0')).toHaveTextContent('91.0%');
    expect(screen.getByTestId('try-label-2')).toHaveTextContent('2.0%');
    expect(screen.getByTestId('try-latency')).toHaveTextContent('0.42 ms');

    expect(seen).toHaveLength(1);
    expect(seen[0].url).toBe(`${window.location.origin}/api/v1/deployments/21/try/`);
    expect(seen[0].init.credentials).toBe('same-origin');
    const headers = seen[0].init.headers as Record<string, string>;
    expect(headers['X-CSRFToken']).toBe('csrf-123');
    expect(headers.Authorization).toBeUndefined();
    const form = seen[0].init.body as FormData;
    expect((form.get('file') as File).name).toBe('digit-3.png');
    expect(form.get('top_k')).toBe('5');
  });

  it('keeps working after a reload (a fresh mount holds nothing) and stores nothing in the browser', async () => {
    URL.createObjectURL = vi.fn(() => 'blob:preview');
    URL.revokeObjectURL = vi.fn();
    const seen = stubTry(() => json(ANSWER));
    const user = userEvent.setup();
    const first = renderWithApp(<TryItPanel deployment={DEPLOYMENT} />);
    first.unmount(); // a reload: nothing survives in memory
    const { container } = renderWithApp(<TryItPanel deployment={DEPLOYMENT} />);
    await user.upload(container.querySelector('input[type="file"]') as HTMLInputElement, digit());
    await user.click(screen.getByTestId('try-submit'));
    expect(await screen.findByTestId('try-result')).toBeInTheDocument();
    expect(seen).toHaveLength(1);
    expect(localStorage.length + sessionStorage.length).toBe(0);
  });

  it('shows a refused call with its status and message, and says when the deployment is stopped', async () => {
    URL.createObjectURL = vi.fn(() => 'blob:preview');
    URL.revokeObjectURL = vi.fn();
    stubTry(() => apiError(409, 'deployment_stopped', 'This deployment is stopped; start it to serve predictions.'));
    const user = userEvent.setup();
    renderWithApp(<TryItPanel deployment={{ ...DEPLOYMENT, status: 'stopped' }} />);
    expect(screen.getByTestId('try-stopped')).toBeInTheDocument();
    fireEvent.drop(screen.getByTestId('try-dropzone'), { dataTransfer: { files: [digit()] } });
    expect(await screen.findByTestId('try-file-name')).toHaveTextContent('digit-3.png');
    await user.click(screen.getByTestId('try-submit'));
    const error = await screen.findByTestId('try-error');
    expect(error).toHaveTextContent('409 deployment_stopped');
    expect(error).toHaveTextContent('stopped');
    expect(screen.queryByTestId('try-result')).not.toBeInTheDocument();
  });
});

describe('Try it on a model version (before deploying)', () => {
  it('sends a small batch of images to the model version try route and shows each answer by file name', async () => {
    let made = 0;
    URL.createObjectURL = vi.fn(() => `blob:preview-${++made}`);
    URL.revokeObjectURL = vi.fn();
    const seen = stubTry(() => json({ ...ANSWER, predictions: [{ top_k: scores('3') }, { top_k: scores('7') }] }));
    const user = userEvent.setup();
    const { container, unmount } = renderWithApp(<ModelVersionTryPanel version={VERSION} />);
    expect(screen.getByTestId('model-version-try')).toHaveTextContent('Try V3');
    await user.upload(container.querySelector('input[type="file"]') as HTMLInputElement, [digit('three.png'), digit('seven.png')]);
    expect(screen.getByTestId('try-file-name')).toHaveTextContent('2 images');
    await user.click(screen.getByTestId('try-submit'));

    expect(await screen.findByTestId('try-answer-1')).toHaveTextContent('seven.png');
    expect(screen.getByTestId('try-answer-0')).toHaveTextContent('three.png');
    expect(screen.getByTestId('try-1-label-0')).toHaveAttribute('data-label', '7');
    expect(seen[0].url).toBe(`${window.location.origin}/api/v1/model-versions/12/try/`);
    const form = seen[0].init.body as FormData;
    expect((form.getAll('file') as File[]).map((file) => file.name)).toEqual(['three.png', 'seven.png']);
    unmount();
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:preview-1');
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:preview-2');
  });

  it('refuses more than ten images before calling', async () => {
    URL.createObjectURL = vi.fn(() => 'blob:x');
    URL.revokeObjectURL = vi.fn();
    const seen = stubTry(() => json(ANSWER));
    const user = userEvent.setup();
    const { container } = renderWithApp(<ModelVersionTryPanel version={VERSION} />);
    const many = Array.from({ length: 12 }, (_, i) => digit(`${i}.png`));
    await user.upload(container.querySelector('input[type="file"]') as HTMLInputElement, many);
    expect(screen.getByTestId('try-input-error')).toHaveTextContent('at most 10');
    expect(screen.getByTestId('try-file-name')).toHaveTextContent('10 images');
    expect(seen).toHaveLength(0);
  });

  it('sends one text per line as a batch', async () => {
    const seen = stubTry(() => json({ ...ANSWER, predictions: [{ top_k: scores('1') }, { top_k: scores('2') }] }));
    const user = userEvent.setup();
    renderWithApp(<ModelVersionTryPanel version={{ id: 3, name: 'V1', template: 'text_classification' }} />);
    await user.click(screen.getByTestId('try-per-line'));
    await user.type(screen.getByTestId('try-text'), 'Open a file.{enter}Sort the list.');
    await user.click(screen.getByTestId('try-submit'));
    await screen.findByTestId('try-answer-1');
    expect(JSON.parse(seen[0].init.body as string)).toEqual({ instances: [{ text: 'Open a file.' }, { text: 'Sort the list.' }], top_k: 5 });
    expect((seen[0].init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
  });

  it('refuses a row that is not a JSON object before calling, and shows a regression value', async () => {
    const seen: Seen[] = [];
    vi.stubGlobal('fetch', vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith('/api/v1/model-versions/4/')) return json({ id: 4, preprocessing: null });
      seen.push({ url, init: init ?? {} });
      return json({ kind: 'regression_prediction', version: 1, model_version: { id: 4, name: 'V1', template: 'tabular_regression' }, predictions: [{ top_k: [{ value: 42.5 }] }], latency_ms: 0.3 });
    }));
    const user = userEvent.setup();
    renderWithApp(<ModelVersionTryPanel version={{ id: 4, name: 'V1', template: 'tabular_regression' }} />);
    const input = screen.getByTestId('try-text');
    await user.type(input, '[[1]');
    await user.click(screen.getByTestId('try-submit'));
    expect(await screen.findByTestId('try-input-error')).toHaveTextContent('must be a JSON object');
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
    renderWithApp(<ModelVersionTryPanel version={{ ...VERSION, template: 'tabular_classification' }} />);
    await user.click(await screen.findByTestId('try-example-row'));
    expect(JSON.parse((screen.getByTestId('try-text') as HTMLTextAreaElement).value)).toEqual({ rooms: 3.142, city: 'Bern' });
  });

  it('speaks Chinese: 校验模型, the reason on the disabled button, the answer in zh-CN', async () => {
    await i18n.changeLanguage('zh-CN');
    URL.createObjectURL = vi.fn(() => 'blob:preview');
    URL.revokeObjectURL = vi.fn();
    stubTry(() => json(ANSWER));
    const user = userEvent.setup();
    const { container } = renderWithApp(<ModelVersionTryPanel version={VERSION} />);
    expect(screen.getByTestId('model-version-try')).toHaveTextContent('校验模型 V3');
    expect(screen.getByTestId('try-submit')).toHaveTextContent('预测');
    expect(container.querySelector('[data-disabled-reason]')).toHaveAttribute('data-disabled-reason', '请先选择图片。');
    await user.upload(container.querySelector('input[type="file"]') as HTMLInputElement, digit());
    await user.click(screen.getByTestId('try-submit'));
    await waitFor(() => expect(screen.getByTestId('try-latency')).toHaveTextContent('服务端 0.42 ms'));
    expect(screen.getByText('预测结果')).toBeInTheDocument();
  });
});
