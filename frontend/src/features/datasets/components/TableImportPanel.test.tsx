import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TableImportPanel } from './TableImportPanel';

const PREVIEW = {
  filename: 'docs.csv',
  format: 'csv',
  encoding: 'utf-8',
  delimiter: ',',
  decimal: '.',
  sheet: null,
  sheets: [],
  partial: false,
  rows_read: 2,
  columns: [
    { name: 'area', type: 'categorical' },
    { name: 'docstring', type: 'text' },
  ],
  rows: [
    { area: 'files', docstring: 'Return the names of the entries in a directory.' },
    { area: 'numbers', docstring: 'Return the square root of x.' },
  ],
  suggested: { text_column: 'docstring', label_column: null },
};

const BATCH = {
  id: 7, dataset: 1, source: 'table', filename: 'docs.csv', size_bytes: 90, label_name: '', job: null, progress: {},
  mapping: { text_column: 'docstring', label_column: 'area' }, status: 'succeeded', files: 2, imported: 2,
  duplicates: 0, failed: 0, ignored: 0, labels_created: ['files', 'numbers'], problems: [], error_code: '', error: '',
  created_by: 'admin', created_at: '2026-11-29T10:00:00Z', finished_at: '2026-11-29T10:00:01Z',
};

type Sent = { url: string; body: FormData };

type Answer = { status: number; body: unknown };

/** XMLHttpRequest answering each URL from its queue of answers (the last one repeats). */
function fakeXhr(answers: Record<string, unknown | Answer[]>) {
  const sent: Sent[] = [];
  const queues = new Map(Object.entries(answers).map(([url, answer]) => [
    url,
    Array.isArray(answer) ? [...answer] : [{ status: url.endsWith('/preview/') ? 200 : 201, body: answer }],
  ]));
  class FakeXhr {
    upload = { onprogress: null };
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    withCredentials = false;
    status = 0;
    statusText = '';
    responseText = '';
    private url = '';
    open(_method: string, url: string) {
      this.url = url;
    }
    setRequestHeader() {}
    getResponseHeader() {
      return 'application/json';
    }
    abort() {}
    send(body: FormData) {
      sent.push({ url: this.url, body });
      const queue = queues.get(this.url)!;
      const answer = queue.length > 1 ? queue.shift()! : queue[0];
      setTimeout(() => {
        this.status = answer.status;
        this.responseText = JSON.stringify(answer.body);
        this.onload?.();
      }, 5);
    }
  }
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  return sent;
}

describe('TableImportPanel', () => {
  it('previews the file, lets the user map the label column, then imports with the mapping', async () => {
    fakeApi({
      'GET /api/v1/datasets/1/imports/': page([]),
      'GET /api/v1/datasets/1/imports/7/': () => new Response(JSON.stringify(BATCH), { headers: { 'Content-Type': 'application/json' } }),
    });
    const sent = fakeXhr({ '/api/v1/datasets/1/imports/preview/': PREVIEW, '/api/v1/datasets/1/imports/': BATCH });
    renderWithApp(<TableImportPanel datasetId={1} taskType="text_classification" />);

    const file = new File(['area,docstring\n'], 'docs.csv', { type: 'text/csv' });
    fireEvent.change(screen.getByTestId('table-file-input'), { target: { files: [file] } });
    expect(await screen.findByTestId('table-mapping')).toBeInTheDocument();
    expect(screen.getByTestId('table-preview')).toHaveTextContent('Return the square root of x.');
    expect(screen.getByTestId('mapping-text-column')).toHaveValue('docstring (text)');

    fireEvent.click(screen.getByTestId('mapping-label-column'));
    fireEvent.click((await screen.findAllByRole('option', { name: 'area (categorical)', hidden: true })).at(-1)!);
    fireEvent.click(screen.getByTestId('table-import'));

    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1].url).toBe('/api/v1/datasets/1/imports/');
    expect(sent[1].body.get('text_column')).toBe('docstring');
    expect(sent[1].body.get('label_column')).toBe('area');
    await waitFor(() => expect(screen.queryByTestId('table-mapping')).not.toBeInTheDocument());
  });

  it('offers the encodings the server names when it is not sure, and imports with the one picked', async () => {
    fakeApi({
      'GET /api/v1/datasets/1/imports/': page([]),
      'GET /api/v1/datasets/1/imports/7/': () => new Response(JSON.stringify(BATCH), { headers: { 'Content-Type': 'application/json' } }),
    });
    const refused = {
      error: {
        code: 'bad_encoding',
        message: 'The file is not UTF-8 and its encoding is not certain: it could be cp1252, cp1251.',
        details: { encoding: ['...'], candidates: ['cp1252', 'cp1251'], line: 2, offset: 4 },
      },
    };
    const sent = fakeXhr({
      '/api/v1/datasets/1/imports/preview/': [{ status: 400, body: refused }, { status: 200, body: { ...PREVIEW, encoding: 'cp1251' } }],
      '/api/v1/datasets/1/imports/': BATCH,
    });
    renderWithApp(<TableImportPanel datasetId={1} taskType="text_classification" />);
    fireEvent.change(screen.getByTestId('table-file-input'), { target: { files: [new File(['x'], 'ru.csv')] } });
    expect(await screen.findByTestId('table-error')).toHaveTextContent('it could be cp1252, cp1251');
    expect(sent[0].body.get('encoding')).toBeNull();

    fireEvent.click(screen.getByTestId('table-encoding-cp1251'));
    expect(await screen.findByTestId('table-mapping')).toBeInTheDocument();
    expect(sent[1].body.get('encoding')).toBe('cp1251');
    expect(screen.queryByTestId('table-error')).not.toBeInTheDocument();
    expect(screen.getByTestId('table-read-as')).toHaveTextContent('cp1251');

    fireEvent.click(screen.getByTestId('table-import'));
    await waitFor(() => expect(sent).toHaveLength(3));
    expect(sent[2].url).toBe('/api/v1/datasets/1/imports/');
    expect(sent[2].body.get('encoding')).toBe('cp1251');
    expect(sent[2].body.get('text_column')).toBe('docstring');
  });

  it('shows the detected delimiter and decimal mark and re-reads the file with the ones chosen', async () => {
    fakeApi({ 'GET /api/v1/datasets/1/imports/': page([]) });
    const wine = {
      ...PREVIEW, filename: 'wine.csv', delimiter: ';', decimal: ',',
      columns: [{ name: 'alcohol', type: 'numeric' }, { name: 'quality', type: 'numeric' }],
      rows: [{ alcohol: '12.8', quality: '6' }], suggested: { target_column: null },
    };
    const sent = fakeXhr({ '/api/v1/datasets/1/imports/preview/': [{ status: 200, body: wine }, { status: 200, body: { ...wine, delimiter: '|' } }] });
    renderWithApp(<TableImportPanel datasetId={1} taskType="tabular_regression" />);
    fireEvent.change(screen.getByTestId('table-file-input'), { target: { files: [new File(['x'], 'wine.csv')] } });
    expect(await screen.findByTestId('table-mapping')).toBeInTheDocument();
    expect(screen.getByTestId('table-read-as')).toHaveTextContent('delimiter semicolon ; · decimal comma');
    expect(screen.getByTestId('table-delimiter')).toHaveValue('detected (semicolon ;)');
    expect(screen.getByTestId('table-decimal')).toHaveValue('detected (comma 1,5)');

    fireEvent.click(screen.getByTestId('table-delimiter'));
    fireEvent.click((await screen.findAllByRole('option', { name: 'pipe |', hidden: true })).at(-1)!);
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1].body.get('delimiter')).toBe('|');
    expect(sent[1].body.get('decimal')).toBeNull();
    expect(await screen.findByTestId('table-read-as')).toHaveTextContent('delimiter pipe |');
  });

  it('lists an XLSX workbook\'s sheets and previews the one chosen', async () => {
    fakeApi({ 'GET /api/v1/datasets/1/imports/': page([]) });
    const book = { ...PREVIEW, filename: 'book.xlsx', format: 'xlsx', encoding: 'binary', delimiter: null, sheet: 'Data', sheets: ['Cover', 'Data'] };
    const sent = fakeXhr({ '/api/v1/datasets/1/imports/preview/': book });
    renderWithApp(<TableImportPanel datasetId={1} taskType="text_classification" />);
    fireEvent.change(screen.getByTestId('table-file-input'), { target: { files: [new File(['x'], 'book.xlsx')] } });
    expect(await screen.findByTestId('table-mapping')).toBeInTheDocument();
    expect(screen.getByTestId('table-read-as')).toHaveTextContent('xlsx · binary · sheet Data');
    expect(screen.queryByTestId('table-delimiter')).not.toBeInTheDocument();
    expect(screen.queryByTestId('table-encoding')).not.toBeInTheDocument();
    fireEvent.click(screen.getByTestId('table-sheet'));
    fireEvent.click((await screen.findAllByRole('option', { name: 'Cover', hidden: true })).at(-1)!);
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1].body.get('sheet')).toBe('Cover');
  });
});
