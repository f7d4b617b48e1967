import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { compareDetectionReports, prCurveRows } from '../../api/detection';
import { headlineMetric } from '../../api/modelVersions';
import { CompareView } from '../CompareView';
import { EvaluationReport } from '../EvaluationReport';
import { DETECTION_REPORT, DETECTION_REPORT_B, DETECTION_VERSION, DETECTION_VERSION_B } from './detectionFixtures';

function serve() {
  return fakeApi({
    'GET /api/v1/model-versions/31/': json(DETECTION_VERSION),
    'GET /api/v1/model-versions/31/evaluation/': json({ id: 31, name: 'V1', evaluation: DETECTION_REPORT }),
    'GET /api/v1/model-versions/32/evaluation/': json({ id: 32, name: 'V2', evaluation: DETECTION_REPORT_B }),
    'GET /api/v1/model-versions/': json(page([DETECTION_VERSION, DETECTION_VERSION_B])),
    'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V2' }),
  });
}

describe("a detector's evaluation report", () => {
  it('shows mAP@[.5:.95], mAP@.5 and mAP@.75, AP per class, PR curves and the confusion with background', async () => {
    serve();
    renderWithApp(<EvaluationReport modelVersionId={31} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    expect(await screen.findByTestId('det-map')).toHaveTextContent('61.0%');
    expect(screen.getByTestId('det-map50')).toHaveTextContent('87.5%');
    expect(screen.getByTestId('det-map75')).toHaveTextContent('64.0%');
    expect(screen.getByTestId('eval-headline')).toHaveTextContent('mAP@.5 87.5%');
    const seven = screen.getByTestId('det-class-1');
    expect(seven).toHaveTextContent('seven');
    expect(seven).toHaveTextContent('52.0%');
    expect(seven).toHaveTextContent('80.0%');
    expect(seven).toHaveTextContent('9');
    const curves = screen.getByTestId('det-pr-curves');
    expect(curves).toHaveAttribute('data-series', 'one,seven');
    expect(curves).toHaveAttribute('data-points', '3');
    // the background row counts false detections, its column missed objects
    expect(screen.getByTestId('det-confusion')).toHaveTextContent('background');
    expect(screen.getByTestId('det-cm-2-0')).toHaveTextContent('2');
    expect(screen.getByTestId('det-cm-0-2')).toHaveTextContent('1');
  });

  it('draws a bad case with its predicted and true boxes, and opens it in the box labeler', async () => {
    serve();
    const user = userEvent.setup();
    renderWithApp(
      <Routes>
        <Route path="/models/31" element={<EvaluationReport modelVersionId={31} onFixLabels={vi.fn()} onCompare={vi.fn()} />} />
        <Route path="/datasets/:datasetId/annotate/:sampleId" element={<p data-testid="labeler">labeler</p>} />
      </Routes>,
      { route: '/models/31' },
    );
    const bad = await screen.findByTestId('det-bad-case-501');
    expect(bad).toHaveTextContent('1 false · 1 missed');
    const drawn = within(bad).getAllByTestId('drawn-box');
    expect(drawn.map((box) => [box.getAttribute('data-label'), box.getAttribute('data-dashed')])).toEqual([
      ['one', 'true'],
      ['seven', 'true'],
      ['seven', null],
    ]);
    expect(within(bad).getByRole('img')).toHaveAttribute('src', '/api/v1/datasets/3/samples/501/image/');
    // previous/next in the labeler step through the report's bad cases
    expect(within(bad).getByTestId('det-bad-case-open-501')).toHaveAttribute('href', '/datasets/3/annotate/501?ids=501');
    await user.click(within(bad).getByTestId('det-bad-case-open-501'));
    expect(await screen.findByTestId('labeler')).toBeInTheDocument();
  });

  it('reads in Chinese', async () => {
    serve();
    await i18n.changeLanguage('zh-CN');
    try {
      renderWithApp(<EvaluationReport modelVersionId={31} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
      expect(await screen.findByTestId('det-bad-case-501')).toHaveTextContent('误检 1 · 漏检 1');
      expect(screen.getByTestId('det-confusion')).toHaveTextContent('背景');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});

describe('comparing two detectors', () => {
  it('lists mAP and per-class AP deltas (B minus A, in points)', async () => {
    serve();
    renderWithApp(<CompareView projectId={4} a={31} b={32} onChange={vi.fn()} />);
    expect(await screen.findByTestId('compare-detection')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('compare-overall-delta-map')).toHaveAttribute('data-value'));
    expect(Number(screen.getByTestId('compare-overall-delta-map').getAttribute('data-value'))).toBeCloseTo(0.05, 6);
    expect(screen.getByTestId('compare-overall-delta-map')).toHaveTextContent('+5.0 pt');
    expect(screen.getByTestId('compare-class-ap-delta-one')).toHaveTextContent('-5.0 pt');
    expect(screen.getByTestId('compare-class-ap-delta-seven')).toHaveTextContent('+15.0 pt');
    expect(screen.getByTestId('compare-chart')).toHaveAttribute('data-classes', 'one,seven');
  });

  it('tells a detector from a classifier', async () => {
    const classifier = { ...DETECTION_VERSION_B, template: 'image_classification' };
    fakeApi({ 'GET /api/v1/model-versions/': json(page([DETECTION_VERSION, classifier])) });
    renderWithApp(<CompareView projectId={4} a={31} b={32} onChange={vi.fn()} />);
    expect(await screen.findByTestId('compare-unavailable')).toHaveTextContent('V2 is not an object detector');
  });
});

describe('detection report helpers', () => {
  it("names a detector's headline by mAP@.5 in the models table", () => {
    const headline = headlineMetric(DETECTION_VERSION as never);
    expect(headline.label).toBe('mAP@.5 87.5%');
    expect(headline.title).toBe('test mAP@.5 87.5%, mAP@[.5:.95] 61.0%');
  });

  it('keeps a class without ground truth out of the deltas and curves', () => {
    const empty = { ...DETECTION_REPORT_B.per_class[1], ap: -1, ap50: -1, ap75: -1, ground_truth: 0, pr_curve: { recall: [], precision: [] } };
    const b = { ...DETECTION_REPORT_B, per_class: [DETECTION_REPORT_B.per_class[0], empty] };
    const comparison = compareDetectionReports(DETECTION_REPORT, b);
    expect(comparison.per_class[1].label).toBe('seven');
    expect(Number.isNaN(comparison.per_class[1].delta)).toBe(true);
    expect(prCurveRows(b).series).toEqual(['one']);
    // a precision of -1 (a recall the class never reaches) is no point of the curve
    expect(prCurveRows(DETECTION_REPORT).rows[2]).toEqual({ recall: 1, one: 0.9 });
  });
});
