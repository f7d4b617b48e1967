import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { TableImportPanel } from './TableImportPanel';

const PREVIEW = {
  filename: 'stores.csv', format: 'csv', encoding: 'utf-8', delimiter: ',', decimal: '.', sheet: null, sheets: [], partial: false, rows_read: 2,
  columns: [
    { name: 'date', type: 'datetime' },
    { name: 'store', type: 'categorical' },
    { name: 'sales', type: 'numeric' },
    { name: 'price', type: 'numeric' },
    { name: 'holiday', type: 'numeric' },
    { name: 'region', type: 'categorical' },
  ],
  rows: [
    { date: '2026-01-01', store: 's01', sales: '12', price: '2.5', holiday: '1', region: 'north' },
    { date: '2026-01-02', store: 's01', sales: '15', price: '2.5', holiday: '0', region: 'north' },
  ],
  suggested: {
    timestamp_column: 'date', series_column: 'store', target_columns: ['sales'], known_covariates: [], static_covariates: [],
    frequency_inferred: 'D', timestamp_candidates: ['date'], series_candidates: ['store', 'region'], target_candidates: ['sales', 'price', 'holiday'],
  },
};

const BATCH = {
  id: 8, dataset: 1, source: 'table', filename: 'stores.csv', size_bytes: 900, label_name: '', job: null, progress: {},
  mapping: {}, status: 'succeeded', files: 1, imported: 1200, duplicates: 0, failed: 1, ignored: 0, labels_created: [],
  problems: [
    { file: 'row 14', code: 'non_numeric_target', message: "row 14: the 'sales' cell 'n/a' is not a number" },
    { file: "series 's03'", code: 'gap', message: "series 's03': 4 missing steps between 2026-02-01 and 2026-02-06, filled by interpolate", action: 'warning' },
  ],
  error_code: '', error: '', created_by: 'admin', created_at: '2026-12-05T07:00:00Z', finished_at: '2026-12-05T07:00:01Z',
};

type Sent = { url: string; body: FormData };

/** XMLHttpRequest answering each URL with its JSON (previews 200, imports 201); every request body recorded. */
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
    getResponseHeader() {
      return 'application/json';
    }
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

/** The options a (Multi)Select offers now: its own listbox's. */
async function listbox(user: ReturnType<typeof userEvent.setup>, testId: string): Promise<HTMLElement> {
  const input = screen.getByTestId(testId);
  await user.click(input);
  return waitFor(() => document.getElementById(input.getAttribute('aria-controls') ?? '') as HTMLElement);
}

async function pick(user: ReturnType<typeof userEvent.setup>, testId: string, option: string) {
  await user.click(within(await listbox(user, testId)).getByRole('option', { name: option, hidden: true }));
}

describe('a forecasting import', () => {
  it('maps timestamp, series id, targets and covariates, and sends the lists as repeated fields', async () => {
    fakeApi({
      'GET /api/v1/datasets/1/imports/': page([]),
      'GET /api/v1/datasets/1/imports/8/': BATCH,
    });
    const sent = fakeXhr({ '/api/v1/datasets/1/imports/preview/': PREVIEW, '/api/v1/datasets/1/imports/': BATCH });
    const user = userEvent.setup();
    renderWithApp(<TableImportPanel datasetId={1} taskType="time_series_forecasting" />);
    fireEvent.change(screen.getByTestId('table-file-input'), { target: { files: [new File(['date,store\n'], 'stores.csv')] } });
    expect(await screen.findByTestId('ts-mapping')).toBeInTheDocument();

    // The server's suggestion fills the form; the inferred frequency is named.
    expect(screen.getByTestId('ts-timestamp-column')).toHaveValue('date (datetime)');
    expect(screen.getByTestId('ts-series-column')).toHaveValue('store (categorical)');
    expect(screen.getByTestId('ts-frequency')).toHaveValue('inferred: daily (D)');
    expect(screen.getByTestId('ts-fill-rule-meaning')).toHaveTextContent('straight line between its nearest observed neighbours');

    await pick(user, 'ts-known-covariates', 'price (numeric)');
    await pick(user, 'ts-known-covariates', 'holiday (numeric)');
    await pick(user, 'ts-static-covariates', 'region (categorical)');
    // A column plays one role: price is no longer offered as a target.
    const offered = await listbox(user, 'ts-target-columns');
    expect(within(offered).queryAllByRole('option', { hidden: true }).map((option) => option.textContent)).toEqual(['sales (numeric)']);
    await pick(user, 'ts-fill-rule', 'zero');
    expect(screen.getByTestId('ts-fill-rule-meaning')).toHaveTextContent('a missing value is 0');

    fireEvent.click(screen.getByTestId('table-import'));
    await waitFor(() => expect(sent).toHaveLength(2));
    const form = sent[1].body;
    expect(sent[1].url).toBe('/api/v1/datasets/1/imports/');
    expect(form.get('timestamp_column')).toBe('date');
    expect(form.get('series_column')).toBe('store');
    expect(form.getAll('target_columns')).toEqual(['sales']);
    expect(form.getAll('known_covariates')).toEqual(['price', 'holiday']);
    expect(form.getAll('static_covariates')).toEqual(['region']);
    expect(form.get('fill_rule')).toBe('zero');
    expect(form.get('frequency')).toBeNull();

    // The report lists the refused row and, after it, the gap as a warning.
    const report = await screen.findByTestId('import-problems-8');
    const rows = within(report).getAllByTestId('import-problem');
    expect(rows.map((row) => row.dataset.code)).toEqual(['non_numeric_target', 'gap']);
    expect(rows[0]).toHaveTextContent('Target not a number');
    expect(rows[1]).toHaveAttribute('data-action', 'warning');
    expect(rows[1]).toHaveTextContent('Gap (filled)');
    expect(screen.getByTestId('import-8')).toHaveTextContent('stores.csv');
  });

  it('a wide table: no series column, no static covariates; a frequency override is sent', async () => {
    fakeApi({ 'GET /api/v1/datasets/1/imports/': page([]), 'GET /api/v1/datasets/1/imports/8/': BATCH });
    const wide = {
      ...PREVIEW,
      columns: [{ name: 'month', type: 'datetime' }, { name: 'co2', type: 'numeric' }, { name: 'temp', type: 'numeric' }],
      suggested: { timestamp_column: 'month', series_column: null, target_columns: [], known_covariates: [], static_covariates: [], frequency_inferred: null },
    };
    const sent = fakeXhr({ '/api/v1/datasets/1/imports/preview/': wide, '/api/v1/datasets/1/imports/': BATCH });
    const user = userEvent.setup();
    renderWithApp(<TableImportPanel datasetId={1} taskType="time_series_forecasting" />);
    fireEvent.change(screen.getByTestId('table-file-input'), { target: { files: [new File(['month,co2\n'], 'co2.csv')] } });
    expect(await screen.findByTestId('ts-mapping')).toBeInTheDocument();
    expect(screen.getByTestId('ts-series-column')).toHaveValue('none (wide table: one series per target column)');
    expect(screen.getByTestId('ts-static-covariates')).toBeDisabled();
    expect(screen.getByTestId('ts-frequency')).toHaveValue('inferred from the timestamps');
    // No target yet: the import waits for one.
    expect(screen.getByTestId('table-import')).toBeDisabled();

    await pick(user, 'ts-target-columns', 'co2 (numeric)');
    await pick(user, 'ts-target-columns', 'temp (numeric)');
    await pick(user, 'ts-frequency', 'monthly (month start) (MS)');
    expect(screen.getByTestId('table-import')).toBeEnabled();
    fireEvent.click(screen.getByTestId('table-import'));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1].body.getAll('target_columns')).toEqual(['co2', 'temp']);
    expect(sent[1].body.get('series_column')).toBeNull();
    expect(sent[1].body.get('frequency')).toBe('MS');
    expect(sent[1].body.get('fill_rule')).toBe('interpolate');
  });

  it('in zh-CN', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi({ 'GET /api/v1/datasets/1/imports/': page([]) });
    fakeXhr({ '/api/v1/datasets/1/imports/preview/': PREVIEW });
    renderWithApp(<TableImportPanel datasetId={1} taskType="time_series_forecasting" />);
    fireEvent.change(screen.getByTestId('table-file-input'), { target: { files: [new File(['x'], 'stores.csv')] } });
    expect(await screen.findByTestId('ts-mapping')).toHaveTextContent('时间戳列');
    expect(screen.getByTestId('ts-frequency')).toHaveValue('推断为：每天（D）');
  });
});
