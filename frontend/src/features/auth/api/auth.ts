import { api, ApiError, readCookie, unwrap } from '@/api/client';
import type { paths } from '@/api/schema';

export type User = paths['/api/v1/auth/me/']['get']['responses'][200]['content']['application/json'];
export type MeUpdate = NonNullable<paths['/api/v1/auth/me/']['patch']['requestBody']>['content']['application/json'];
export type LoginBody = NonNullable<paths['/api/v1/auth/login/']['post']['requestBody']>['content']['application/json'];

export const authKeys = {
  me: ['auth', 'me'] as const,
  csrf: ['auth', 'csrf'] as const,
};

/** Asks the server to set the `csrftoken` cookie. */
export async function fetchCsrf(): Promise<string> {
  const data = await unwrap(api.GET('/api/v1/auth/csrf/'));
  return data?.csrf_token ?? readCookie('csrftoken') ?? '';
}

/** The signed-in user, or null when there is no session. */
export async function fetchMe(): Promise<User | null> {
  try {
    return await unwrap(api.GET('/api/v1/auth/me/'));
  } catch (error) {
    if (error instanceof ApiError && error.isUnauthenticated) return null;
    throw error;
  }
}

export async function login(body: LoginBody): Promise<User> {
  if (!readCookie('csrftoken')) await fetchCsrf();
  return unwrap(api.POST('/api/v1/auth/login/', { body }));
}

export async function logout(): Promise<void> {
  await api.POST('/api/v1/auth/logout/');
}

/** Saves the signed-in user's own preferences (the UI language). */
export async function updateMe(body: MeUpdate): Promise<User> {
  return unwrap(api.PATCH('/api/v1/auth/me/', { body }));
}
