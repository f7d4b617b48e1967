import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { QualityPanel } from './QualityPanel';

const BASE = '/api/v1/datasets/1';

function finding(code: string, severity: string, sampleIds: number[], extra: Record<string, unknown> = {}) {
  return { code, severity, count: sampleIds.length, sample_ids: sampleIds, items: [], groups: [], column: '', details: {}, ...extra };
}

function report(taskType = 'image_classification') {
  return {
    kind: 'quality_report',
    version: 1,
    task_type: taskType,
    classes: ['零', '一', '二'],
    samples: 130,
    labeled: 125,
    class_balance: {
      classes: [
        { label: 0, name: '零', count: 96 },
        { label: 1, name: '一', count: 21 },
        { label: 2, name: '二', count: 8 },
      ],
      imbalance_ratio: 12,
      min_per_class: 10,
      tiny_classes: [2],
    },
    findings: [
      finding('near_duplicates', 'warning', [5, 9, 11, 12], { groups: [[5, 9], [11, 12]], items: [{ sample: 9, value: 2 }] }),
      finding('likely_mislabeled', 'error', [21, 22], {
        items: [
          { sample: 21, label: 0, suggested_label: 1, confidence: 0.97 },
          { sample: 22, label: 2, suggested_label: 0, confidence: 0.81 },
        ],
      }),
      finding('unlabeled_samples', 'info', [100, 101, 102, 103, 104]),
    ],
    distributions: [{ name: 'brightness', edges: [0, 0.5, 1], counts: [40, 90] }],
    checks: ['near_duplicates', 'likely_mislabeled', 'unlabeled_samples'],
    skipped: [],
    seconds: 3.2,
  };
}

function run(status: string, extra: Record<string, unknown> = {}) {
  return {
    id: 7,
    dataset: 1,
    version: null,
    version_name: null,
    status,
    job: 70,
    progress: { kind: 'progress', version: 1 },
    params: {},
    report: status === 'succeeded' ? report() : null,
    error: '',
    created_by: 'alice',
    created_at: '2026-12-05T00:00:00Z',
    finished_at: null,
    ...extra,
  };
}

function summary(row: ReturnType<typeof run>) {
  const { report: _report, ...rest } = row;
  return rest;
}

describe('QualityPanel', () => {
  beforeEach(() => {
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue({ width: 460, height: 400, top: 0, left: 0, right: 460, bottom: 400, x: 0, y: 0, toJSON: () => ({}) });
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(460);
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(400);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await i18n.changeLanguage('en');
  });

  function routes(taskType: string, detail: ReturnType<typeof run>) {
    return {
      [`GET ${BASE}/`]: json({ id: 1, task_type: taskType }),
      [`GET ${BASE}/versions/`]: json(page([{ id: 3, name: 'V1', sample_count: 120 }])),
      [`GET ${BASE}/quality-reports/`]: json(page([summary(detail)])),
      [`GET ${BASE}/quality-reports/7/`]: json(detail),
    };
  }

  it('shows the findings by severity, the class balance advice and links each finding into the labeler', async () => {
    fakeApi(routes('image_classification', run('succeeded')));
    renderWithApp(<QualityPanel datasetId={1} canEdit />);
    const view = await screen.findByTestId('quality-report');
    expect(within(view).getByTestId('quality-samples')).toHaveTextContent('130');
    expect(within(view).getByTestId('quality-findings')).toHaveTextContent('3');
    expect(within(view).getByTestId('quality-concerned')).toHaveTextContent('6'); // errors and warnings, not notes

    // errors first, then warnings, then notes
    const sections = [...view.querySelectorAll('[data-testid^="findings-"]')].map((node) => node.getAttribute('data-testid'));
    expect(sections).toEqual(['findings-error', 'findings-warning', 'findings-info']);
    expect(screen.getByTestId('findings-error')).toHaveTextContent('1 error');

    const mislabels = screen.getByTestId('finding-likely_mislabeled');
    expect(mislabels).toHaveTextContent('Likely mislabeled');
    const rows = within(mislabels).getAllByTestId('mislabel-row');
    expect(rows.map((row) => within(row).getByTestId('mislabel-current').textContent)).toEqual(['零', '二']);
    expect(rows.map((row) => within(row).getByTestId('mislabel-suggested').textContent)).toEqual(['一', '零']);
    expect(rows[0]).toHaveTextContent('97.0%');
    expect(within(mislabels).getAllByTestId('finding-thumbnail')[0]).toHaveAttribute('src', `${BASE}/samples/21/thumbnail/`);
    expect(within(mislabels).getByTestId('open-in-labeler')).toHaveAttribute('href', '/datasets/1/label?samples=21,22');

    const duplicates = screen.getByTestId('finding-near_duplicates');
    expect(within(duplicates).getAllByTestId('duplicate-group').map((group) => group.getAttribute('data-size'))).toEqual(['2', '2']);
    expect(within(duplicates).getByTestId('open-in-labeler')).toHaveAttribute('href', '/datasets/1/label?samples=5,9,11,12');

    expect(screen.getByTestId('imbalance-ratio')).toHaveTextContent('12×');
    expect(screen.getByTestId('balance-advice')).toHaveTextContent('12× the samples of the smallest');
    expect(screen.getByTestId('balance-advice')).toHaveTextContent('(under 10): 二');
    expect(screen.getByTestId('quality-class-balance')).toHaveAttribute('data-points', '3');
    expect(screen.getByTestId('distribution-brightness')).toHaveTextContent('Brightness');
    expect(screen.getByTestId('quality-job-link')).toHaveAttribute('href', '/jobs/70');
  });

  it('opens an object-detection finding in the box labeler with the rest as its queue', async () => {
    const detection = run('succeeded', { report: report('object_detection') });
    fakeApi(routes('object_detection', detection));
    renderWithApp(<QualityPanel datasetId={1} canEdit />);
    const duplicates = await screen.findByTestId('finding-near_duplicates');
    expect(within(duplicates).getByTestId('open-in-labeler')).toHaveAttribute('href', '/datasets/1/annotate/5?ids=5%2C9%2C11%2C12');
  });

  it('shows the text of a text dataset sample, read by id, where images have thumbnails', async () => {
    const texts = run('succeeded', { report: report('text_classification') });
    const api = fakeApi({
      ...routes('text_classification', texts),
      [`GET ${BASE}/samples/`]: json(
        page([
          { id: 21, original_name: 'row 21', text: '这个产品非常好用，推荐购买' },
          { id: 22, original_name: 'row 22', text: 'x'.repeat(200) },
        ]),
      ),
    });
    renderWithApp(<QualityPanel datasetId={1} canEdit />);
    const mislabels = await screen.findByTestId('finding-likely_mislabeled');
    await waitFor(() => expect(within(mislabels).getAllByTestId('finding-sample')[0]).toHaveTextContent('#21 · 这个产品非常好用，推荐购买'));
    expect(within(mislabels).getAllByTestId('finding-sample')[1].textContent).toBe(`#22 · ${'x'.repeat(60)}…`);
    expect(within(mislabels).queryByTestId('finding-thumbnail')).toBeNull();
    const read = api.callsTo('GET', `${BASE}/samples/`).map((call) => call.search.get('ids'));
    expect(read).toContain('21,22');
  });

  it('runs a report of a version and follows its job', async () => {
    const running = run('running', { version: 3, version_name: 'V1', progress: { kind: 'progress', version: 1, fraction: 0.4, message: 'finding near duplicates' } });
    const api = fakeApi({
      ...routes('image_classification', running),
      [`GET ${BASE}/quality-reports/`]: json(page([])),
      [`POST ${BASE}/quality-reports/`]: json(run('queued', { version: 3, version_name: 'V1' }), 202),
    });
    renderWithApp(<QualityPanel datasetId={1} canEdit />);
    expect(await screen.findByTestId('no-quality-reports')).toBeInTheDocument();
    fireEvent.click(screen.getByTestId('quality-target'));
    fireEvent.click(await screen.findByText('Version V1 (120 samples)'));
    fireEvent.click(screen.getByTestId('quality-thresholds-toggle'));
    fireEvent.change(screen.getByTestId('quality-min-per-class'), { target: { value: '25' } });
    fireEvent.click(screen.getByTestId('run-quality-report'));
    await waitFor(() => expect(api.callsTo('POST', `${BASE}/quality-reports/`)).toHaveLength(1));
    expect(api.callsTo('POST', `${BASE}/quality-reports/`)[0].body).toEqual({ version: 3, params: { min_per_class: 25 } });
    const progress = await screen.findByTestId('quality-progress');
    expect(progress).toHaveTextContent('finding near duplicates');
    expect(progress).toHaveTextContent('40%');
  });

  it('a viewer reads reports but cannot run one', async () => {
    fakeApi(routes('image_classification', run('failed', { error: 'No space left on device' })));
    renderWithApp(<QualityPanel datasetId={1} canEdit={false} />);
    expect(await screen.findByTestId('quality-error')).toHaveTextContent('No space left on device');
    expect(screen.getByTestId('run-quality-report')).toBeDisabled();
  });

  it('in zh-CN', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi(routes('image_classification', run('succeeded')));
    renderWithApp(<QualityPanel datasetId={1} canEdit />);
    const mislabels = await screen.findByTestId('finding-likely_mislabeled');
    expect(mislabels).toHaveTextContent('疑似标错');
    expect(within(mislabels).getByTestId('open-in-labeler')).toHaveTextContent('在标注界面打开');
    expect(screen.getByTestId('balance-advice')).toHaveTextContent('最大类的样本数是最小类的 12 倍');
  });
});
