import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { DIGITS_VERSION, REGRESSION_VERSION, TEXT_VERSION } from './evaluationFixtures';
import { ModelVersionsTable } from './ModelVersionsTable';

describe('ModelVersionsTable', () => {
  it('shows each version by its template headline: R² and RMSE for regression, accuracy for classifiers', async () => {
    fakeApi({
      'GET /api/v1/model-versions/': json(page([REGRESSION_VERSION, TEXT_VERSION])),
      'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V1' }),
    });
    renderWithApp(<ModelVersionsTable projectId={4} onCompare={vi.fn()} />);
    const regression = await screen.findByTestId('model-version-accuracy-21');
    expect(regression).toHaveTextContent('R² 0.5904 · RMSE 44.19');
    expect(regression).toHaveAttribute('title', 'test MAE 35.64, RMSE 44.19, R² 0.5904');
    expect(screen.getByTestId('model-version-accuracy-23')).toHaveTextContent('83.3%');
    expect(screen.getByRole('columnheader', { name: 'Test metric' })).toBeInTheDocument();
  });

  it('names the column after the metric when every version is a regression model', async () => {
    fakeApi({
      'GET /api/v1/model-versions/': json(page([REGRESSION_VERSION])),
      'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V1' }),
    });
    renderWithApp(<ModelVersionsTable projectId={4} onCompare={vi.fn()} />);
    expect(await screen.findByRole('columnheader', { name: 'Test R² · RMSE' })).toBeInTheDocument();
  });

  it('fits a 1024 px window: parameters and code version fold under the template below lg, the rest scrolls inside the table', async () => {
    fakeApi({
      'GET /api/v1/model-versions/': json(page([DIGITS_VERSION, TEXT_VERSION])),
      'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V1' }),
    });
    renderWithApp(<ModelVersionsTable projectId={4} onCompare={vi.fn()} />);
    const table = await screen.findByTestId('model-versions-table');
    // the two least important columns only from lg (1200 px) up: header and cells
    for (const testId of ['model-versions-column-parameters', 'model-versions-column-code-version']) {
      expect(screen.getByTestId(testId)).toHaveClass('mantine-visible-from-lg');
    }
    const row = screen.getByTestId('model-version-row-31');
    const cells = within(row).getAllByRole('cell');
    expect(cells.filter((cell) => cell.classList.contains('mantine-visible-from-lg'))).toHaveLength(2);
    expect(cells.filter((cell) => !cell.classList.contains('mantine-visible-from-lg'))).toHaveLength(7);
    // below lg the template cell carries them instead
    const details = screen.getByTestId('model-version-narrow-details-31');
    expect(details).toHaveClass('mantine-hidden-from-lg');
    expect(within(screen.getByTestId('model-version-template-31')).getByText('model cnn_small · epochs 8 · image_size 64')).toBeInTheDocument();
    expect(details).toHaveTextContent('0.1.0+6c085df332dd');
    // long values wrap instead of widening the table; what still does not fit scrolls inside it
    expect(within(screen.getByTestId('model-version-template-23')).getByText('Text classification · Fast')).toHaveStyle({ overflowWrap: 'break-word' });
    const scroll = screen.getByTestId('model-versions-scroll');
    expect(scroll).toContainElement(table);
    expect(scroll.getAttribute('style')).toContain('--table-min-width: calc(37.5rem');
  });

  it('says why Compare is disabled until two versions are picked, and why ONNX is missing', async () => {
    const onCompare = vi.fn();
    fakeApi({
      'GET /api/v1/model-versions/': json(page([DIGITS_VERSION, { ...TEXT_VERSION, onnx_sha256: '' }])),
      'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V1' }),
    });
    renderWithApp(<ModelVersionsTable projectId={4} onCompare={onCompare} />);
    const compare = await screen.findByTestId('model-versions-compare');
    expect(compare).toBeDisabled();
    expect(compare.closest('[data-disabled-reason]')).toHaveAttribute('data-disabled-reason', 'Tick two model versions in the table to compare them.');
    expect(screen.getByTestId('model-version-onnx-23')).toBeDisabled();
    expect(screen.getByTestId('model-version-onnx-23').closest('[data-disabled-reason]')).toHaveAttribute(
      'data-disabled-reason',
      'This model version has no ONNX file to download.',
    );
    expect(screen.getByTestId('model-version-onnx-31')).toHaveAttribute('href', '/api/v1/model-versions/31/onnx/');

    const user = userEvent.setup();
    await user.click(screen.getByTestId('model-version-pick-31'));
    await user.click(screen.getByTestId('model-version-pick-23'));
    const enabled = screen.getByTestId('model-versions-compare');
    expect(enabled).toBeEnabled();
    expect(enabled.closest('[data-disabled-reason]')).toBeNull();
    await user.click(enabled);
    expect(onCompare).toHaveBeenCalledWith(31, 23);
  });

  it('speaks Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    fakeApi({
      'GET /api/v1/model-versions/': json(page([DIGITS_VERSION, REGRESSION_VERSION])),
      'GET /api/v1/datasets/3/versions/8/': json({ id: 8, name: 'V1' }),
    });
    renderWithApp(<ModelVersionsTable projectId={4} onCompare={vi.fn()} />);
    const table = await screen.findByTestId('model-versions-table');
    expect(within(table).getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual([
      '',
      '版本',
      '测试集指标',
      '数据集版本',
      '模板 · 预设',
      '参数',
      '代码版本',
      '创建时间',
      '',
    ]);
    expect(screen.getByTestId('model-version-accuracy-31')).toHaveAttribute('title', '测试集准确率 98.5%');
    expect(screen.getByTestId('model-version-accuracy-21')).toHaveAttribute('title', '测试集 MAE 35.64，RMSE 44.19，R² 0.5904');
    expect(screen.getByTestId('model-versions-compare')).toHaveTextContent('对比（选择两个）');
    expect(screen.getByTestId('model-version-pick-31')).toHaveAttribute('aria-label', '选择 V1 进行对比');
  });
});
