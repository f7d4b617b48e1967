import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@/api/client';
import { i18n } from '@/i18n';
import { renderWithApp } from '@/test/render';
import { NotFound } from './NotFound';
import { QueryState } from './QueryState';

describe('NotFound and QueryState', () => {
  it('names the missing kind in the UI language', async () => {
    renderWithApp(<NotFound kind="dataset" />);
    expect(screen.getByTestId('not-found')).toHaveTextContent('This dataset does not exist');
    await i18n.changeLanguage('zh-CN');
    expect(await screen.findByText('该数据集不存在')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '返回工作空间' })).toHaveAttribute('href', '/workspaces');
  });

  it('takes text already translated, and a page by default', () => {
    renderWithApp(
      <>
        <NotFound what="thing" />
        <NotFound />
      </>,
    );
    expect(screen.getByText('This thing does not exist')).toBeInTheDocument();
    expect(screen.getByText('This page does not exist')).toBeInTheDocument();
  });

  it('shows a 404 page for a 404 and the translated message for other errors', async () => {
    renderWithApp(<QueryState isPending={false} error={new ApiError({ status: 404, code: 'not_found', message: 'Not found.' })} kind="project" />);
    expect(screen.getByText('This project does not exist')).toBeInTheDocument();
  });

  it('shows the translated message of other errors', async () => {
    await i18n.changeLanguage('zh-CN');
    renderWithApp(<QueryState isPending={false} error={new ApiError({ status: 0, code: 'network_error', message: 'x' })} kind="project" />);
    expect(await screen.findByTestId('query-error')).toHaveTextContent('无法连接到 Sampan 服务器');
  });
});
