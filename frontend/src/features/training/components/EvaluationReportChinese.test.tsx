import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import type { Comparison } from '../api/modelVersions';
import { CompareView } from './CompareView';
import { DIGIT_CLASSES, DIGITS_EVALUATION, DIGITS_VERSION, REGRESSION_EVALUATION, REGRESSION_VERSION } from './evaluationFixtures';
import { EvaluationReport } from './EvaluationReport';

function serve(version: { id: number; name: string; onnx_sha256?: string }, evaluation: unknown) {
  return fakeApi({
    [`GET /api/v1/model-versions/${version.id}/`]: json(version),
    [`GET /api/v1/model-versions/${version.id}/evaluation/`]: json({ id: version.id, name: version.name, evaluation }),
    'GET /api/v1/model-versions/': json(page([version])),
    'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V1' }),
  });
}

const texts = (elements: HTMLElement[]) => elements.map((element) => element.textContent);

describe('EvaluationReport in Chinese, with Chinese class names', () => {
  it('names headings and metrics in Chinese and formats the numbers', async () => {
    await i18n.changeLanguage('zh-CN');
    serve(DIGITS_VERSION, DIGITS_EVALUATION);
    renderWithApp(<EvaluationReport modelVersionId={31} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    expect(await screen.findByTestId('eval-accuracy')).toHaveTextContent('98.5%');
    expect(screen.getByTestId('model-version-name')).toHaveTextContent('模型 V1');
    expect(screen.getByTestId('eval-headline')).toHaveTextContent('测试集准确率 98.5%');
    expect(screen.getByText('在测试集的 200 张图片上评估，共 10 个类别。')).toBeInTheDocument();
    for (const heading of ['模型来源', '各类别指标', '各类别的精确率、召回率和 F1', '混淆矩阵', '最有把握的错误']) {
      expect(screen.getByRole('heading', { name: heading })).toBeInTheDocument();
    }
    for (const metric of ['准确率', 'Top-3 准确率', 'Top-5 准确率', '宏平均精确率', '宏平均召回率', '宏平均 F1', '加权精确率', '加权召回率', '加权 F1']) {
      expect(screen.getByText(metric)).toBeInTheDocument();
    }
    expect(screen.getByTestId('eval-macro-precision')).toHaveTextContent('98.6%');
    expect(screen.getByTestId('eval-top-3')).toHaveTextContent('100.0%');
    expect(texts(within(screen.getByTestId('eval-per-class')).getAllByRole('columnheader'))).toEqual(['类别', '精确率', '召回率', 'F1', '样本数']);
    // 二: 18 of 20 found (recall 90.0%), 三: 20 of 22 predicted right (precision 90.9%)
    expect(screen.getByTestId('eval-class-2')).toHaveTextContent('二100.0%90.0%94.7%20');
    expect(screen.getByTestId('eval-class-3')).toHaveTextContent('三90.9%100.0%95.2%20');
    expect(screen.getByText('真实 ↓ / 预测 →')).toBeInTheDocument();
    expect(screen.getByText('点击单元格查看对应的测试图片。')).toBeInTheDocument();
    expect(screen.getByTestId('model-lineage-backbone')).toHaveTextContent('无（从零开始训练）');
    expect(screen.getByTestId('mistake-1230')).toHaveTextContent('二 → 三 (91%)');
    expect(screen.getByTestId('mistakes-fix-labels')).toHaveTextContent('去标注页修正标注');
    expect(screen.getByTestId('model-onnx-download')).toHaveTextContent('下载 ONNX');

    const user = userEvent.setup();
    await user.click(screen.getByTestId('cm-cell-2-3'));
    expect(await screen.findByRole('dialog', { name: '2 张图片真实为“二”，被预测为“三”' })).toBeInTheDocument();
    expect(screen.getByTestId('cm-fix-labels')).toHaveTextContent('去标注页修正标注');
  });

  it('keeps the report’s class order (the user’s, not code-point order) in the table, the matrix and the chart', async () => {
    serve(DIGITS_VERSION, DIGITS_EVALUATION);
    renderWithApp(<EvaluationReport modelVersionId={31} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    const table = await screen.findByTestId('eval-per-class');
    expect([...DIGIT_CLASSES].sort()).not.toEqual(DIGIT_CLASSES); // the order under test is not a sorted one
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[0].textContent)).toEqual(DIGIT_CLASSES);
    expect(rows.map((row) => row.getAttribute('data-testid'))).toEqual(DIGIT_CLASSES.map((_, index) => `eval-class-${index}`));

    const matrix = screen.getByTestId('confusion-matrix');
    const [header, ...body] = within(matrix).getAllByRole('row');
    expect(texts(within(header).getAllByRole('columnheader')).slice(1)).toEqual(DIGIT_CLASSES);
    expect(body.map((row) => within(row).getAllByRole('columnheader')[0].textContent)).toEqual(DIGIT_CLASSES);
    // 零 mistaken for 六: row 0, column 6
    expect(screen.getByTestId('cm-cell-0-6')).toHaveAttribute('data-count', '1');
    expect(screen.getByTestId('cm-cell-0-6')).toHaveAttribute('aria-label', '1 零 predicted as 六');

    expect(screen.getByTestId('eval-per-class-chart')).toHaveAttribute('data-classes', DIGIT_CLASSES.join(','));
    // mistakes stay in the report's order (most confident first)
    const mistakes = within(screen.getByTestId('eval-mistakes')).getAllByTestId(/^mistake-/);
    expect(mistakes.map((mistake) => mistake.getAttribute('data-sample-id'))).toEqual(['1230', '1060', '1231']);
  });

  it('says why Download ONNX is disabled when the version has no ONNX file', async () => {
    serve({ ...DIGITS_VERSION, onnx_sha256: '' }, DIGITS_EVALUATION);
    renderWithApp(<EvaluationReport modelVersionId={31} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    const button = await screen.findByTestId('model-onnx-download');
    expect(button).toBeDisabled();
    expect(button).not.toHaveAttribute('href');
    expect(button.closest('[data-disabled-reason]')).toHaveAttribute(
      'data-disabled-reason',
      'This model version has no ONNX file to download (it was not exported).',
    );
  });

  it('shows a regression report in Chinese: metric hints, chart titles, columns', async () => {
    await i18n.changeLanguage('zh-CN');
    serve(REGRESSION_VERSION, REGRESSION_EVALUATION);
    renderWithApp(<EvaluationReport modelVersionId={21} onFixLabels={vi.fn()} onCompare={vi.fn()} />);
    expect(await screen.findByTestId('eval-mae')).toHaveTextContent('35.64');
    expect(screen.getByTestId('eval-headline')).toHaveTextContent('测试集 R² 0.5904 · RMSE 44.19');
    expect(screen.getByText('在测试集的 44 行数据上评估。残差 = 预测值 − 实际值。')).toBeInTheDocument();
    expect(screen.getByText('平均绝对误差（与目标值同单位）')).toBeInTheDocument();
    for (const heading of ['残差与预测值', '预测值与实际值', '残差分布', '特征重要性', '误差最大的数据']) {
      expect(screen.getByRole('heading', { name: heading })).toBeInTheDocument();
    }
    const header = within(screen.getByTestId('eval-largest-errors')).getAllByRole('columnheader');
    expect(texts(header).slice(0, 3)).toEqual(['实际值', '预测值', '残差']);
    expect(screen.getByTestId('eval-feature-importance')).toHaveTextContent('打乱某一列的值后，测试集R²下降多少（置换重要性）。 最重要的列： s5, bmi, s6.');
  });
});

describe('CompareView in Chinese, with Chinese class names', () => {
  it('keeps the class order and says the deltas in percentage points', async () => {
    await i18n.changeLanguage('zh-CN');
    const pair = (a: number, b: number) => ({ a, b, delta: b - a });
    const comparison = {
      kind: 'classification_comparison',
      version: 1,
      a: 31,
      b: 32,
      a_name: 'V1',
      b_name: 'V2',
      accuracy: pair(0.9, 0.985),
      macro_f1: pair(0.9, 0.985),
      weighted_f1: pair(0.9, 0.985),
      top_k_accuracy: { '3': pair(0.99, 1) },
      per_class: DIGIT_CLASSES.map((name) => ({ class: name, precision: pair(0.9, 1), recall: pair(0.9, 0.95), f1: pair(0.9, 0.97), support: { a: 20, b: 20 } })),
    } satisfies Comparison;
    fakeApi({
      'GET /api/v1/model-versions/': json(page([DIGITS_VERSION, { ...DIGITS_VERSION, id: 32, name: 'V2' }])),
      'GET /api/v1/model-versions/compare/': json(comparison),
    });
    renderWithApp(<CompareView projectId={4} a={31} b={32} onChange={vi.fn()} />);
    expect(await screen.findByTestId('compare-overall-delta-accuracy')).toHaveTextContent('+8.5 个百分点');
    expect(screen.getByTestId('compare-overall-delta-top-3-accuracy')).toHaveTextContent('+1.0 个百分点');
    expect(screen.getByText('差值 = B 减 A，单位为百分点。')).toBeInTheDocument();
    expect(within(screen.getByTestId('compare-overall')).getAllByRole('row').map((row) => row.querySelector('th, td')?.textContent)).toEqual([
      '指标',
      '准确率',
      '宏平均 F1',
      '加权 F1',
      'Top-3 准确率',
    ]);
    const rows = within(screen.getByTestId('compare-per-class')).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[0].textContent)).toEqual(DIGIT_CLASSES);
    expect(screen.getByTestId('compare-chart')).toHaveAttribute('data-classes', DIGIT_CLASSES.join(','));
    await waitFor(() => expect(screen.getByRole('heading', { name: '各类别 F1' })).toBeInTheDocument());
  });
});
