import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { BackbonesPanel } from './BackbonesPanel';

const VALID_BACKBONE = {
  id: 5,
  workspace: 1,
  project: 3,
  name: 'resnet18-imagenet',
  filename: 'resnet18-imagenet.pt',
  sha256: 'ab12cd34ef56'.padEnd(64, '0'),
  size_bytes: 46_835_659,
  status: 'valid',
  error: '',
  summary: { architecture: 'resnet18', fits: ['resnet18'], tensors: 122, parameters: 11_689_512, head_classes: 1000, dtypes: ['float32', 'int64'] },
  job: 70,
  created_by: 'admin',
  created_at: '2026-11-29T10:00:00Z',
  checked_at: '2026-11-29T10:00:03Z',
};

const PENDING = {
  ...VALID_BACKBONE,
  id: 6,
  name: 'my-weights',
  filename: 'my-weights.pt',
  sha256: 'ff'.padEnd(64, '1'),
  size_bytes: 2048,
  status: 'pending',
  summary: null,
  job: 71,
  checked_at: null,
};

type Sent = { url: string; headers: Record<string, string>; body: FormData };

/** XMLHttpRequest stand-in: reports upload progress, then answers `respond(request)`. */
function fakeXhr(respond: (sent: Sent) => { status: number; body: unknown }) {
  const sent: Sent[] = [];
  class FakeXhr {
    upload: { onprogress: ((event: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    onabort: (() => void) | null = null;
    withCredentials = false;
    status = 0;
    statusText = '';
    responseText = '';
    private url = '';
    private headers: Record<string, string> = {};
    open(_method: string, url: string) {
      this.url = url;
    }
    setRequestHeader(name: string, value: string) {
      this.headers[name] = value;
    }
    abort() {}
    send(body: FormData) {
      const request = { url: this.url, headers: this.headers, body };
      sent.push(request);
      setTimeout(() => this.upload.onprogress?.({ lengthComputable: true, loaded: 40, total: 100 }), 5);
      setTimeout(() => {
        const answer = respond(request);
        this.status = answer.status;
        this.responseText = JSON.stringify(answer.body);
        this.onload?.();
      }, 80);
    }
  }
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  return sent;
}

function chooseFile(name: string, bytes = 2048) {
  const file = new File([new Uint8Array(bytes)], name, { type: 'application/octet-stream' });
  fireEvent.change(screen.getByTestId('backbone-file-input'), { target: { files: [file] } });
  return file;
}

describe('BackbonesPanel', () => {
  it('uploads a state_dict with progress and follows its check until the worker refuses it', async () => {
    document.cookie = 'csrftoken=tok; path=/';
    let listed: unknown[] = [VALID_BACKBONE];
    let polls = 0;
    const server = fakeApi({
      'GET /api/v1/backbones/': () => {
        if (listed.length === 2) polls += 1;
        const invalid = {
          ...PENDING,
          status: 'invalid',
          error: 'my-weights.pt: refused: it holds a pickled builtins.eval object; backbones are read with weights_only=True and may contain only tensors',
        };
        return json(page(polls >= 2 ? [invalid, VALID_BACKBONE] : listed));
      },
    });
    const sent = fakeXhr(() => {
      listed = [PENDING, VALID_BACKBONE];
      return { status: 201, body: PENDING };
    });
    const onUploaded = vi.fn();
    renderWithApp(<BackbonesPanel projectId={3} canEdit onUploaded={onUploaded} />);

    expect(await screen.findByTestId('backbone-summary-5')).toHaveTextContent('fits resnet18 · 122 tensors · 11.7M parameters');
    expect(screen.getByTestId('backbone-row-5')).toHaveTextContent('44.7 MB');
    expect(screen.getByTestId('backbone-upload')).toBeDisabled();
    chooseFile('my-weights.pt');
    expect(screen.getByTestId('backbone-choose')).toHaveTextContent('my-weights.pt · 2.0 KB');
    expect(screen.getByTestId('backbone-name')).toHaveAttribute('placeholder', 'my-weights');
    await userEvent.setup().type(screen.getByTestId('backbone-name'), ' mine ');
    fireEvent.click(screen.getByTestId('backbone-upload'));

    await waitFor(() => expect(screen.getByTestId('backbone-upload-progress')).toHaveAttribute('data-value', '40'));
    await waitFor(() => expect(onUploaded).toHaveBeenCalledWith(expect.objectContaining({ id: 6, status: 'pending' })));
    expect(sent[0].url).toBe('/api/v1/backbones/');
    expect(sent[0].headers['X-CSRFToken']).toBe('tok');
    expect(sent[0].body.get('project')).toBe('3');
    expect(sent[0].body.get('name')).toBe('mine');
    expect((sent[0].body.get('file') as File).name).toBe('my-weights.pt');

    // Listed as being checked, then polled until the worker's verdict arrives.
    expect(await screen.findByTestId('backbone-status-6')).toHaveTextContent('checking');
    await waitFor(() => expect(screen.getByTestId('backbone-status-6')).toHaveTextContent('invalid'), { timeout: 4000 });
    expect(screen.getByTestId('backbone-error-6')).toHaveTextContent('refused: it holds a pickled builtins.eval object');
    const pollsSeen = server.callsTo('GET', '/api/v1/backbones/').length;
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(server.callsTo('GET', '/api/v1/backbones/').length).toBe(pollsSeen); // nothing pending: polling stopped
  });

  it('shows the server message when an upload is refused', async () => {
    fakeApi({ 'GET /api/v1/backbones/': page([]) });
    fakeXhr(() => ({
      status: 413,
      body: {
        error: {
          code: 'upload_too_large',
          message: "file: The file 'huge.pt' is 600,000,000 bytes; a backbone may be at most 536,870,912 bytes (SAMPAN_BACKBONE_MAX_UPLOAD_BYTES).",
          details: { file: ['…'], limit_bytes: 536870912 },
        },
      },
    }));
    renderWithApp(<BackbonesPanel projectId={3} canEdit />);
    expect(await screen.findByTestId('backbones-empty')).toBeInTheDocument();
    chooseFile('huge.pt');
    fireEvent.click(screen.getByTestId('backbone-upload'));
    expect(await screen.findByTestId('backbone-upload-error')).toHaveTextContent('SAMPAN_BACKBONE_MAX_UPLOAD_BYTES');
  });

  it('deletes after a confirmation; viewers cannot upload or delete', async () => {
    const server = fakeApi({
      'GET /api/v1/backbones/': page([VALID_BACKBONE]),
      'DELETE /api/v1/backbones/5/': () => new Response(null, { status: 204 }),
    });
    const { unmount } = renderWithApp(<BackbonesPanel projectId={3} canEdit />);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('backbone-delete-5'));
    expect(server.callsTo('DELETE', '/api/v1/backbones/5/')).toHaveLength(0);
    await user.click(screen.getByTestId('backbone-delete-confirm-5'));
    await waitFor(() => expect(server.callsTo('DELETE', '/api/v1/backbones/5/')).toHaveLength(1));
    unmount();

    fakeApi({ 'GET /api/v1/backbones/': page([VALID_BACKBONE]), 'DELETE /api/v1/backbones/5/': apiError(403, 'permission_denied', 'no') });
    renderWithApp(<BackbonesPanel projectId={3} canEdit={false} />);
    expect(await screen.findByTestId('backbone-delete-5')).toBeDisabled();
    expect(screen.getByTestId('backbone-choose')).toBeDisabled();
  });
});
