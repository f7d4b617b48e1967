import { describe, expect, it } from 'vitest';
import { fakeApi, apiError, json } from '@/test/fakeApi';
import { api, ApiError } from './client';

describe('api client', () => {
  it('throws the server error envelope as an ApiError', async () => {
    fakeApi({
      'POST /api/v1/workspaces/': () =>
        apiError(400, 'invalid', 'name: This field may not be blank.', { name: ['This field may not be blank.'] }),
    });
    const failure = api.POST('/api/v1/workspaces/', { body: { name: '' } });
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(failure).rejects.toMatchObject({
      status: 400,
      code: 'invalid',
      message: 'name: This field may not be blank.',
      details: { name: ['This field may not be blank.'] },
    });
  });

  it('marks 401 and not_authenticated 403 answers as unauthenticated, but not other 403s', async () => {
    fakeApi({
      'GET /api/v1/auth/me/': () => apiError(403, 'not_authenticated', 'Authentication credentials were not provided.'),
      'GET /api/v1/tokens/': () => apiError(403, 'permission_denied', 'You do not have permission.'),
    });
    const me = await api.GET('/api/v1/auth/me/').catch((error: ApiError) => error);
    const tokens = await api.GET('/api/v1/tokens/').catch((error: ApiError) => error);
    expect((me as ApiError).isUnauthenticated).toBe(true);
    expect((tokens as ApiError).isUnauthenticated).toBe(false);
    expect((tokens as ApiError).message).toBe('You do not have permission.');
  });

  it('keeps a non-JSON error body as a readable message', async () => {
    fakeApi({ 'GET /api/v1/workers/': () => new Response('<h1>Bad gateway</h1>', { status: 502, statusText: 'Bad Gateway' }) });
    await expect(api.GET('/api/v1/workers/')).rejects.toMatchObject({ status: 502, code: 'http_502', message: '502 Bad Gateway' });
  });

  it('sends the csrftoken cookie as X-CSRFToken on unsafe methods only', async () => {
    document.cookie = 'csrftoken=abc123; path=/';
    const server = fakeApi({
      'GET /api/v1/workspaces/': json({ count: 0, next: null, previous: null, results: [] }),
      'POST /api/v1/jobs/5/cancel/': json({ id: 5 }),
    });
    await api.GET('/api/v1/workspaces/');
    await api.POST('/api/v1/jobs/{id}/cancel/', { params: { path: { id: 5 } } });
    expect(server.callsTo('GET', '/api/v1/workspaces/')[0].headers.get('X-CSRFToken')).toBeNull();
    expect(server.callsTo('POST', '/api/v1/jobs/5/cancel/')[0].headers.get('X-CSRFToken')).toBe('abc123');
  });

  it('turns a network failure into a network_error ApiError', async () => {
    fakeApi({ 'GET /api/v1/workers/': () => Promise.reject(new TypeError('Failed to fetch')) });
    await expect(api.GET('/api/v1/workers/')).rejects.toMatchObject({ status: 0, code: 'network_error' });
  });
});
