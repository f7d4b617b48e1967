import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { ClassificationReport, RegressionReport } from '../api/modelVersions';
import { EvaluationReport } from './EvaluationReport';
import {
  REGRESSION_EVALUATION,
  REGRESSION_VERSION,
  TABULAR_CLASSIFICATION_EVALUATION,
  TABULAR_CLASSIFICATION_VERSION,
} from './evaluationFixtures';
import { spreadOf, type CrossValidation, type MetricInterval } from './spreadFormat';
import { CrossValidationPanel, MetricIntervalText } from './ValidationSpread';

const CV: CrossValidation = {
  kind: 'cross_validation',
  version: 1,
  method: 'kfold',
  folds: 5,
  metric: 'accuracy',
  direction: 'maximize',
  samples: 142,
  scores: [
    { fold: 0, train_samples: 113, samples: 29, score: 0.931 },
    { fold: 1, train_samples: 113, samples: 29, score: 0.966 },
    { fold: 2, train_samples: 114, samples: 28, score: 0.893 },
    { fold: 3, train_samples: 114, samples: 28, score: 1.0 },
    { fold: 4, train_samples: 114, samples: 28, score: 0.964 },
  ],
  mean: 0.9508,
  std: 0.0402,
  chosen: { model: 'ensemble', n_estimators: 212 },
  candidates: [
    { name: 'gbdt', mean: 0.93, std: 0.04, weight: 0.6, chosen: false },
    { name: 'linear', mean: 0.95, std: 0.03, weight: 0.4, chosen: false },
    { name: 'ensemble', mean: 0.9508, std: 0.0402, chosen: true },
  ],
  reason: '142 samples (fewer than 5,000): 5-fold cross-validation chooses the model and its stopping point',
};

const CLASSIFICATION_INTERVALS: MetricInterval[] = [
  { metric: 'accuracy', value: 0.9444, low: 0.8611, high: 1.0, confidence: 0.95, resamples: 1000 },
  { metric: 'macro_f1', value: 0.9441, low: 0.8533, high: 1.0, confidence: 0.95, resamples: 1000 },
];

const REGRESSION_INTERVALS: MetricInterval[] = [
  { metric: 'mae', value: 35.6387, low: 31.2, high: 40.1, confidence: 0.95, resamples: 1000 },
  { metric: 'rmse', value: 44.1939, low: 39.0, high: 49.5, confidence: 0.95, resamples: 1000 },
  { metric: 'r2', value: 0.5904, low: 0.4812, high: 0.6755, confidence: 0.95, resamples: 1000 },
];

function serve(version: { id: number }, evaluation: object) {
  return fakeApi({
    [`GET /api/v1/model-versions/${version.id}/`]: json(version),
    [`GET /api/v1/model-versions/${version.id}/evaluation/`]: json({ id: version.id, name: 'V', evaluation }),
    'GET /api/v1/model-versions/': json(page([version])),
    'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V2' }),
  });
}

function report(id: number) {
  renderWithApp(<EvaluationReport modelVersionId={id} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
}

describe('spreadOf', () => {
  it('reads the cross-validation and intervals a report carries, and nothing from an older report', () => {
    expect(spreadOf({ cross_validation: CV, intervals: CLASSIFICATION_INTERVALS })).toEqual({
      crossValidation: CV,
      intervals: CLASSIFICATION_INTERVALS,
    });
    expect(spreadOf(TABULAR_CLASSIFICATION_EVALUATION)).toEqual({ crossValidation: null, intervals: [] });
    expect(spreadOf(null)).toEqual({ crossValidation: null, intervals: [] });
  });
});

describe('CrossValidationPanel', () => {
  it('plots a dot per fold, the mean and the ±1 std band, and lists the candidates', () => {
    renderWithApp(<CrossValidationPanel cv={CV} />);
    const panel = screen.getByTestId('cv-panel');
    expect(panel).toHaveAttribute('data-folds', '5');
    const dots = within(panel).getAllByTestId('cv-fold');
    expect(dots.map((dot) => Number(dot.getAttribute('data-score')))).toEqual([0.931, 0.966, 0.893, 1.0, 0.964]);
    // higher scores sit higher on the chart (smaller y)
    const y = dots.map((dot) => Number(dot.getAttribute('cy')));
    expect(y[3]).toBeLessThan(y[1]);
    expect(y[1]).toBeLessThan(y[2]);
    const band = within(panel).getByTestId('cv-band');
    const mean = Number(within(panel).getByTestId('cv-mean').getAttribute('y1'));
    const top = Number(band.getAttribute('y'));
    expect(mean).toBeGreaterThan(top);
    expect(mean).toBeLessThan(top + Number(band.getAttribute('height')));
    expect(within(panel).getByTestId('cv-mean-std')).toHaveTextContent('Accuracy 95.1% ± 4.0% over the folds');
    expect(within(panel).getByTestId('cv-summary')).toHaveTextContent('k-fold cross-validation: 5 folds over 142 training and validation samples');
    expect(within(panel).getByTestId('cv-reason')).toHaveTextContent(CV.reason);
    expect(within(panel).getByTestId('cv-chosen')).toHaveTextContent('model = ensemble, n_estimators = 212');
    const candidates = within(panel).getByTestId('cv-candidates');
    expect(within(candidates).getByTestId('cv-candidate-gbdt')).toHaveTextContent('93.0% ± 4.0%60%');
    expect(within(candidates).getByTestId('cv-candidate-ensemble')).toHaveAttribute('data-chosen', 'true');
    expect(within(candidates).getByTestId('cv-candidate-ensemble')).toHaveTextContent('kept');
    expect(within(candidates).getByTestId('cv-candidate-linear')).not.toHaveAttribute('data-chosen');
  });

  it('stops the band of a share at 100%, where the perfect fold sits', () => {
    renderWithApp(<CrossValidationPanel cv={{ ...CV, std: 0.08 }} />);
    const perfect = screen.getAllByTestId('cv-fold').find((dot) => dot.getAttribute('data-score') === '1');
    expect(Number(screen.getByTestId('cv-band').getAttribute('y'))).toBeCloseTo(Number(perfect?.getAttribute('cy')));
    expect(screen.getByTestId('cv-band')).toHaveTextContent('Mean ± 1 standard deviation: 87.1% to 100.0%');
  });

  it('shows a regression metric as a number, lower is better, without a candidates table', () => {
    const rmse: CrossValidation = {
      ...CV,
      metric: 'rmse',
      direction: 'minimize',
      folds: 3,
      scores: CV.scores.slice(0, 3).map((fold) => ({ ...fold, score: fold.score * 50 })),
      mean: 46.5,
      std: 1.8,
      candidates: undefined,
      chosen: { n_estimators: 212 },
    };
    renderWithApp(<CrossValidationPanel cv={rmse} />);
    expect(screen.getAllByTestId('cv-fold')).toHaveLength(3);
    expect(screen.getByTestId('cv-mean-std')).toHaveTextContent('RMSE 46.5 ± 1.8 over the folds');
    expect(screen.getByTestId('cv-summary')).toHaveTextContent('lower is better');
    expect(screen.queryByTestId('cv-candidates')).toBeNull();
  });

  it('reads in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    try {
      renderWithApp(<CrossValidationPanel cv={CV} />);
      expect(screen.getByText('交叉验证')).toBeInTheDocument();
      expect(screen.getByTestId('cv-summary')).toHaveTextContent('k 折交叉验证');
      expect(screen.getByTestId('cv-candidate-ensemble')).toHaveTextContent('已保留');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});

describe('MetricIntervalText', () => {
  it('shows the interval of the metric asked for, or nothing', () => {
    const { rerender } = renderWithApp(<MetricIntervalText intervals={CLASSIFICATION_INTERVALS} metric="accuracy" samples={36} noun="rows" />);
    expect(screen.getByTestId('metric-interval')).toHaveTextContent('95% interval 86.1%–100.0% · bootstrap over 36 rows');
    rerender(<MetricIntervalText intervals={CLASSIFICATION_INTERVALS} metric="r2" samples={36} noun="rows" />);
    expect(screen.queryByTestId('metric-interval')).toBeNull();
  });
});

describe('EvaluationReport with validation and spread', () => {
  it('shows a classifier report with its intervals and cross-validation', async () => {
    const evaluation = { ...TABULAR_CLASSIFICATION_EVALUATION, cross_validation: CV, intervals: CLASSIFICATION_INTERVALS } as ClassificationReport;
    serve(TABULAR_CLASSIFICATION_VERSION, evaluation);
    report(TABULAR_CLASSIFICATION_VERSION.id);
    expect(await screen.findByTestId('cv-panel')).toHaveAttribute('data-folds', '5');
    expect(screen.getAllByTestId('cv-fold')).toHaveLength(5);
    expect(screen.getByTestId('eval-headline-interval')).toHaveTextContent(`95% interval 86.1%–100.0% · bootstrap over ${TABULAR_CLASSIFICATION_EVALUATION.samples} rows`);
    const intervals = screen.getAllByTestId('metric-interval').map((element) => element.getAttribute('data-metric'));
    expect(intervals).toEqual(['accuracy', 'accuracy', 'macro_f1']);
    expect(screen.getByTestId('eval-macro-f1').parentElement).toHaveTextContent('85.3%–100.0%');
  });

  it('shows a regression report with its intervals and cross-validation', async () => {
    const rmse: CrossValidation = { ...CV, metric: 'rmse', direction: 'minimize', mean: 46.5, std: 1.8, candidates: undefined };
    const evaluation = { ...REGRESSION_EVALUATION, cross_validation: rmse, intervals: REGRESSION_INTERVALS } as RegressionReport;
    serve(REGRESSION_VERSION, evaluation);
    report(REGRESSION_VERSION.id);
    expect(await screen.findByTestId('cv-panel')).toHaveAttribute('data-metric', 'rmse');
    expect(screen.getByTestId('eval-headline-interval')).toHaveTextContent(
      `95% interval 0.4812–0.6755 · bootstrap over ${REGRESSION_EVALUATION.samples} rows`,
    );
    const metrics = screen.getAllByTestId('metric-interval').map((element) => element.getAttribute('data-metric'));
    expect(metrics).toEqual(['r2', 'mae', 'rmse', 'r2']);
    expect(screen.getByTestId('eval-rmse').parentElement).toHaveTextContent('39–49.5');
  });

  it('shows an older report without either, as before', async () => {
    serve(TABULAR_CLASSIFICATION_VERSION, TABULAR_CLASSIFICATION_EVALUATION);
    report(TABULAR_CLASSIFICATION_VERSION.id);
    expect(await screen.findByTestId('eval-accuracy')).toBeInTheDocument();
    expect(screen.queryByTestId('cv-panel')).toBeNull();
    expect(screen.queryByTestId('metric-interval')).toBeNull();
    expect(screen.queryByTestId('eval-headline-interval')).toBeNull();
  });
});
