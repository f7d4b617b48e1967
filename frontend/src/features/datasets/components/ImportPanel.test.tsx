import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { batchFiles } from '../api/imports';
import { ImportPanel } from './ImportPanel';

const BATCH = {
  id: 5,
  dataset: 1,
  source: 'archive',
  filename: 'digits.zip',
  size_bytes: 1000,
  label_name: '',
  job: 9,
  progress: {},
  files: 4,
  imported: 0,
  duplicates: 0,
  failed: 0,
  ignored: 0,
  labels_created: [],
  problems: [],
  error_code: '',
  error: '',
  created_by: 'admin',
  created_at: '2026-11-29T10:00:00Z',
  finished_at: null,
};

type Sent = { url: string; headers: Record<string, string>; body: FormData };

/**
 * XMLHttpRequest stand-in: reports upload progress, then answers `respond(body)` once `answerWhen`
 * resolves (at once without it), so a test sees the progress however slow the machine.
 */
function fakeXhr(respond: (sent: Sent) => { status: number; body: unknown }, answerWhen: Promise<void> = Promise.resolve()) {
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
      setTimeout(() => this.upload.onprogress?.({ lengthComputable: true, loaded: 50, total: 100 }), 5);
      void answerWhen.then(() =>
        setTimeout(() => {
          const answer = respond(request);
          this.status = answer.status;
          this.responseText = JSON.stringify(answer.body);
          this.onload?.();
        }, 10),
      );
    }
  }
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  return sent;
}

describe('ImportPanel', () => {
  it('uploads a dropped archive as a background import, follows its job and lists the problem files', async () => {
    document.cookie = 'csrftoken=tok; path=/';
    let polls = 0;
    fakeApi({
      'GET /api/v1/datasets/1/imports/': page([]),
      'GET /api/v1/datasets/1/imports/5/': () => {
        polls += 1;
        if (polls < 2) return json({ ...BATCH, status: 'running', progress: { fraction: 0.5 } });
        return json({
          ...BATCH,
          status: 'succeeded',
          imported: 2,
          duplicates: 1,
          failed: 1,
          labels_created: ['cat'],
          problems: [
            { file: 'cat/copy.png', code: 'duplicate', message: 'Same image as cat/a.png.' },
            { file: 'cat/broken.png', code: 'corrupt_image', message: 'Not a readable image.' },
          ],
          finished_at: '2026-11-29T10:00:05Z',
        });
      },
    });
    let answer = () => {};
    const sent = fakeXhr(
      () => ({ status: 202, body: { ...BATCH, status: 'queued' } }),
      new Promise<void>((resolve) => {
        answer = resolve;
      }),
    );
    renderWithApp(<ImportPanel datasetId={1} />);

    const archive = new File(['zipbytes'], 'digits.zip', { type: 'application/zip' });
    fireEvent.drop(screen.getByTestId('import-dropzone'), { dataTransfer: { files: [archive] } });

    expect(await screen.findByTestId('upload-progress')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('upload-progress')).toHaveAttribute('data-value', '50'));
    answer();
    expect(await screen.findByTestId('import-status-5')).toBeInTheDocument();
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe('/api/v1/datasets/1/imports/');
    expect(sent[0].headers['X-CSRFToken']).toBe('tok');
    expect(sent[0].body.get('background')).toBe('true');
    expect((sent[0].body.get('archive') as File).name).toBe('digits.zip');

    await waitFor(() => expect(screen.getByTestId('import-status-5')).toHaveTextContent('succeeded'), { timeout: 4000 });
    expect(screen.getByTestId('import-imported-5')).toHaveTextContent('2');
    expect(screen.getByTestId('import-duplicates-5')).toHaveTextContent('1');
    const problems = screen.getByTestId('import-problems-5');
    expect(problems).toHaveTextContent('cat/broken.png');
    expect(problems).toHaveTextContent('Corrupt image');
    expect(problems).toHaveTextContent('cat/copy.png');
    expect(problems).toHaveTextContent('Duplicate');
  });

  it('shows the server message when an upload is refused', async () => {
    fakeApi({ 'GET /api/v1/datasets/1/imports/': page([]) });
    fakeXhr(() => ({ status: 400, body: { error: { code: 'import_rejected', message: 'The archive is empty.', details: {} } } }));
    renderWithApp(<ImportPanel datasetId={1} />);
    fireEvent.drop(screen.getByTestId('import-dropzone'), { dataTransfer: { files: [new File(['x'], 'empty.zip')] } });
    expect(await screen.findByTestId('upload-error')).toHaveTextContent('The archive is empty.');
  });
});

describe('batchFiles', () => {
  it('keeps each upload under the byte and file limits, in order', () => {
    const file = (name: string, size: number) => new File([new Uint8Array(size)], name);
    const files = [file('a', 6), file('b', 6), file('c', 3), file('d', 1), file('e', 20)];
    expect(batchFiles(files, 10, 2).map((batch) => batch.map((item) => item.name))).toEqual([['a'], ['b', 'c'], ['d'], ['e']]);
  });
});
