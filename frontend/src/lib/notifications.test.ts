import { describe, expect, it } from 'vitest';
import { ApiError } from '@/api/client';
import { i18n } from '@/i18n';
import { errorDetailLines, errorMessage } from './notifications';

describe('error text', () => {
  it('lists field errors without repeating the envelope message', () => {
    const error = new ApiError({
      status: 400,
      code: 'invalid',
      message: "username: No user is named 'nobody'.",
      details: { username: ["No user is named 'nobody'."], role: ['"boss" is not a valid choice.'] },
    });
    expect(errorMessage(error)).toBe("username: No user is named 'nobody'.");
    expect(errorDetailLines(error)).toEqual(['role: "boss" is not a valid choice.']);
  });

  it('has a message for anything thrown', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage('???')).toBe('Something went wrong.');
    expect(errorDetailLines(new Error('boom'))).toEqual([]);
  });
});

describe('translated error codes', () => {
  it('shows the Chinese message of a known code, with the details filled in', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(errorMessage(new ApiError({ status: 404, code: 'not_found', message: 'Not found.' }))).toBe('未找到。它可能已被删除，或者您没有访问权限。');
    const tooMany = new ApiError({ status: 413, code: 'batch_too_large', message: 'The request has 40 instances; at most 32 are accepted per request.', details: { count: 40, max_batch: 32 } });
    expect(errorMessage(tooMany)).toBe('请求包含 40 条输入，单次最多接受 32 条。');
    const body = new ApiError({ status: 413, code: 'body_too_large', message: 'Too big.', details: { size_bytes: 25_000_000, limit_bytes: 20_000_000 } });
    expect(errorMessage(body)).toMatch(/^请求大小为 25.*MB，上限为 20.*MB。$/);
  });

  it('keeps the server text where the generic code needs its specifics', async () => {
    await i18n.changeLanguage('zh-CN');
    const error = new ApiError({ status: 400, code: 'invalid', message: 'name: This field may not be blank.', details: { name: ['This field may not be blank.'] } });
    expect(errorMessage(error)).toBe('输入有误：name: This field may not be blank.');
  });

  it("falls back to the server's text for an unknown code, or when the details lack a message's variables", async () => {
    await i18n.changeLanguage('zh-CN');
    expect(errorMessage(new ApiError({ status: 418, code: 'teapot', message: "I'm a teapot." }))).toBe("I'm a teapot.");
    // batch_too_large's message names the count and the limit; without them the server's sentence reads better.
    expect(errorMessage(new ApiError({ status: 413, code: 'batch_too_large', message: 'Too many instances.' }))).toBe('Too many instances.');
  });

  it("in English shows the server's own message, and the catalog's for the client's own codes", () => {
    const quota = new ApiError({ status: 429, code: 'quota_exceeded', message: 'This key may make 1 calls per minute; retry in 42 s.' });
    expect(errorMessage(quota)).toBe('This key may make 1 calls per minute; retry in 42 s.');
    expect(errorMessage(new ApiError({ status: 502, code: 'http_502', message: '502 Bad Gateway' }))).toMatch(/not answering \(502 Bad Gateway\)/);
    expect(errorMessage(new ApiError({ status: 0, code: 'network_error', message: 'x' }))).toBe(
      'Cannot reach the Sampan server. Check your connection and try again.',
    );
  });

  it('translates the client-side codes', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(errorMessage(new ApiError({ status: 0, code: 'network_error', message: 'Cannot reach the Sampan server.' }))).toBe(
      '无法连接到 Sampan 服务器。请检查网络连接后重试。',
    );
    expect(errorMessage(new ApiError({ status: 0, code: 'aborted', message: 'Upload cancelled.' }))).toBe('上传已取消。');
    expect(errorMessage('???')).toBe('出错了。');
  });
});
