import { i18n } from '@/i18n';
import { progressMessage } from './progressMessage';

const progress = (extra: Record<string, unknown>) => ({ kind: 'progress', version: 1, ...extra }) as Parameters<typeof progressMessage>[0];

describe('progressMessage', () => {
  it("shows the worker's sentence in English", () => {
    expect(progressMessage(progress({ message: 'evaluated 8/8 images', evaluated: 8, total: 8 }))).toBe('evaluated 8/8 images');
  });

  it('composes the line from the figures in Chinese, never the English sentence', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(progressMessage(progress({ message: 'evaluated 8/8 images', evaluated: 8, total: 8 }))).toBe('已评估 8/8');
    expect(progressMessage(progress({ message: 'epoch 2/5', epoch: 2, epochs: 5 }))).toBe('第 2/5 轮');
    expect(progressMessage(progress({ message: 'read 3 of 9 files', processed: 3, total: 9 }))).toBe('已处理 3/9 个文件');
    expect(progressMessage(progress({ message: 'warming up' }))).toBe('warming up');
    expect(progressMessage(progress({}))).toBeUndefined();
  });
});
