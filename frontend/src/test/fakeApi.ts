import { vi } from 'vitest';

export type RecordedCall = { method: string; path: string; search: URLSearchParams; headers: Headers; body: unknown };
type Handler = (call: RecordedCall) => Response | Promise<Response>;

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

export function apiError(status: number, code: string, message: string, details: unknown = {}): Response {
  return json({ error: { code, message, details } }, status);
}

export function page<T>(results: T[]) {
  return { count: results.length, next: null, previous: null, results };
}

/**
 * Stubs global fetch with a route table keyed "METHOD /path/" (query ignored); a value is a handler,
 * a Response (answered again on every call) or plain data (answered as JSON). Unknown routes answer
 * 404 in the server's error shape, so a test that forgets one fails loudly. Every call is recorded.
 */
export function fakeApi(routes: Record<string, Handler | unknown>) {
  const calls: RecordedCall[] = [];
  const fetchStub = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const text = request.method === 'GET' ? '' : await request.text();
    const call: RecordedCall = {
      method: request.method,
      path: url.pathname,
      search: url.searchParams,
      headers: request.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    calls.push(call);
    const route = routes[`${call.method} ${call.path}`];
    if (route === undefined) return apiError(404, 'not_found', `No fake for ${call.method} ${call.path}`);
    if (typeof route === 'function') return (route as Handler)(call);
    return route instanceof Response ? route.clone() : json(route);
  });
  vi.stubGlobal('fetch', fetchStub);
  return {
    calls,
    callsTo: (method: string, path: string) => calls.filter((call) => call.method === method && call.path === path),
  };
}

export const ADMIN = { id: 1, username: 'admin', email: 'admin@example.com', is_staff: true };
