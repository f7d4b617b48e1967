import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TableImportPanel } from './TableImportPanel';

const PREVIEW = {
  filename: 'docs.csv',
  format: 'csv',
  encoding: 'utf-8',
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

function fakeXhr(answers: Record<string, unknown>) {
  const sent: Sent[] = [];
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
    abort() {}
    send(body: FormData) {
      sent.push({ url: this.url, body });
      setTimeout(() => {
        this.status = this.url.endsWith('/preview/') ? 200 : 201;
        this.responseText = JSON.stringify(answers[this.url]);
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
});
