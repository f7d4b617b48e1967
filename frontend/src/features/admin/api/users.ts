import { api, unwrap } from '@/api/client';
import type { paths } from '@/api/schema';

type UserPage = paths['/api/v1/users/']['get']['responses'][200]['content']['application/json'];
export type AdminUser = UserPage['results'][number];
export type UserCreateBody = NonNullable<paths['/api/v1/users/']['post']['requestBody']>['content']['application/json'];
export type PasswordResetResult = paths['/api/v1/users/{id}/reset-password/']['post']['responses'][200]['content']['application/json'];

/** The actions on one account that answer the account. */
export type UserAction = 'deactivate' | 'reactivate' | 'make-admin' | 'remove-admin';

export const userKeys = {
  list: ['users', 'list'] as const,
};

/** The first 500 accounts, by username (an installation with more is not a UI concern yet). */
export function listUsers() {
  return unwrap(api.GET('/api/v1/users/', { params: { query: { page_size: 500 } } }));
}

export function createUser(body: UserCreateBody) {
  return unwrap(api.POST('/api/v1/users/', { body }));
}

export function runUserAction(id: number, action: UserAction) {
  const options = { params: { path: { id } } };
  switch (action) {
    case 'deactivate':
      return unwrap(api.POST('/api/v1/users/{id}/deactivate/', options));
    case 'reactivate':
      return unwrap(api.POST('/api/v1/users/{id}/reactivate/', options));
    case 'make-admin':
      return unwrap(api.POST('/api/v1/users/{id}/make-admin/', options));
    case 'remove-admin':
      return unwrap(api.POST('/api/v1/users/{id}/remove-admin/', options));
  }
}

/** Sets `password`, or generates one when it is undefined (answered once, in the result). */
export function resetPassword(id: number, password?: string) {
  return unwrap(
    api.POST('/api/v1/users/{id}/reset-password/', { params: { path: { id } }, body: password === undefined ? {} : { password } }),
  );
}
