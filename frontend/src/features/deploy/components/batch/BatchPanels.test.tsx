import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { i18n } from '@/i18n';
import { fakeApi, json, page } from '@/test/fakeApi';
import { renderWithApp } from '@/test/render';
import { DEPLOYMENT } from '../../test/fixtures';
import { DeploymentBatchPanel, ProjectBatchPanel } from './BatchPanels';
import { BATCH } from './fixtures';

describe('DeploymentBatchPanel', () => {
  it("lists the deployment's runs and starts one by its serving version, recorded as from the deployment", async () => {
    const server = fakeApi({
      'GET /api/v1/batch-predictions/': page([{ ...BATCH, deployment: 7 }]),
      'GET /api/v1/datasets/': page([{ id: 3, name: 'digits' }]),
      'GET /api/v1/datasets/3/versions/': page([{ id: 5, name: 'digits v2', dataset: 3 }]),
      'POST /api/v1/batch-predictions/': () => json({ ...BATCH, id: 22, status: 'queued', summary: null, files: [], deployment: 7 }, 201),
    });
    const user = userEvent.setup();
    renderWithApp(<DeploymentBatchPanel deployment={DEPLOYMENT} canEdit />);
    expect(await screen.findByTestId('batch-row-21')).toBeInTheDocument();
    expect(screen.getByText('Batch predictions from this deployment')).toBeInTheDocument();
    expect(server.calls[0].search.get('deployment')).toBe('7');
    await user.click(screen.getByTestId('batch-predict'));
    await user.click(await screen.findByTestId('batch-dataset'));
    await user.click(await screen.findByRole('option', { name: 'digits', hidden: true }));
    await user.click(screen.getByTestId('batch-version'));
    await user.click(await screen.findByRole('option', { name: 'digits v2', hidden: true }));
    await user.click(screen.getByTestId('batch-predict-submit'));
    await waitFor(() => expect(server.callsTo('POST', '/api/v1/batch-predictions/')).toHaveLength(1));
    expect(server.callsTo('POST', '/api/v1/batch-predictions/')[0].body).toMatchObject({
      model_version: DEPLOYMENT.model_version,
      deployment: 7,
      source: 'dataset_version',
      dataset_version: 5,
      split: 'test',
    });
  });
});

describe('ProjectBatchPanel', () => {
  it("speaks Chinese: the project's runs with status, input, metrics and the viewer's reason", async () => {
    await i18n.changeLanguage('zh-CN');
    const server = fakeApi({ 'GET /api/v1/batch-predictions/': page([BATCH]) });
    renderWithApp(<ProjectBatchPanel projectId={4} canEdit={false} />);
    expect(await screen.findByTestId('batch-status-21')).toHaveTextContent('已完成');
    expect(screen.getByTestId('batch-row-21')).toHaveTextContent('digits v2 · 测试集');
    expect(screen.getByTestId('batch-metrics-21')).toHaveTextContent('准确率 0.9612');
    expect(screen.getByTestId('batch-rows-21')).toHaveTextContent('360 行，已预测 358 行');
    const reason = document.querySelector('[data-disabled-reason]')?.getAttribute('data-disabled-reason') ?? '';
    expect(reason).toBe('查看者不能开始、取消或删除批量预测。');
    expect(server.calls[0].search.get('project')).toBe('4');
  });
});
