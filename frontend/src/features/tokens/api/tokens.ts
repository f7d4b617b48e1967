import { api, unwrap } from '@/api/client';
import type { paths } from '@/api/schema';

type TokenPage = paths['/api/v1/tokens/']['get']['responses'][200]['content']['application/json'];
export type Token = TokenPage['results'][number];
export type CreatedToken = paths['/api/v1/tokens/']['post']['responses'][201]['content']['application/json'];
export type TokenCreateBody = NonNullable<paths['/api/v1/tokens/']['post']['requestBody']>['content']['application/json'];

export const tokenKeys = {
  all: ['tokens'] as const,
  list: () => [...tokenKeys.all, 'list'] as const,
};

export function listTokens() {
  return unwrap(api.GET('/api/v1/tokens/', { params: { query: { page_size: 100 } } }));
}

export function createToken(body: TokenCreateBody) {
  return unwrap(api.POST('/api/v1/tokens/', { body }));
}

export function revokeToken(id: number) {
  return unwrap(api.POST('/api/v1/tokens/{id}/revoke/', { params: { path: { id } } }));
}
