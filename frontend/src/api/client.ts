import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** The error every failed API call throws: the server's `{"error": {code, message, details}}` body. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;

  constructor({ status, code, message, details }: { status: number; code: string; message: string; details?: unknown }) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** True when the caller has no (or an expired) session: the app sends them to the login page. */
  get isUnauthenticated(): boolean {
    return this.status === 401 || this.code === 'not_authenticated' || this.code === 'authentication_failed';
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The client's own failures, with codes of their own. Like the server's, an ApiError's message stays
 * English (logs, tests, the SDK's wording); the UI shows `errors.<code>` from the catalogs
 * (errorMessage in src/lib/notifications.ts).
 */
export const CLIENT_ERROR_MESSAGES = {
  network_error: 'Cannot reach the Sampan server. Check your connection and try again.',
  bad_response: 'The server sent an unreadable answer.',
  aborted: 'Upload cancelled.',
} as const;

/** Codes the client makes up itself (no server envelope): the UI always translates these. */
export function isClientErrorCode(code: string): boolean {
  return code in CLIENT_ERROR_MESSAGES || /^http_\d+$/.test(code);
}

export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return null;
}

/** Django's CSRF check: unsafe methods carry the `csrftoken` cookie back as a header. */
export const csrfMiddleware: Middleware = {
  onRequest({ request }) {
    if (!UNSAFE_METHODS.has(request.method.toUpperCase())) return undefined;
    const token = readCookie('csrftoken');
    if (token) request.headers.set('X-CSRFToken', token);
    return request;
  },
};

async function errorFromResponse(response: Response): Promise<ApiError> {
  return errorFromText(response.status, response.statusText, await response.clone().text());
}

/** The ApiError for a failed answer's status and body text (the server's envelope when it sent one). */
export function errorFromText(status: number, statusText: string, text: string): ApiError {
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  const envelope = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (envelope && typeof envelope === 'object') {
    return new ApiError({
      status,
      code: typeof envelope.code === 'string' ? envelope.code : `http_${status}`,
      message: typeof envelope.message === 'string' && envelope.message ? envelope.message : statusText,
      details: envelope.details,
    });
  }
  return new ApiError({
    status,
    code: `http_${status}`,
    message: `${status} ${statusText || 'request failed'}`.trim(),
    details: body ?? text.slice(0, 500),
  });
}

/** Non-2xx responses become a thrown ApiError, so callers only ever see data. */
export const errorMiddleware: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await errorFromResponse(response);
    return undefined;
  },
  onError({ error }) {
    if (error instanceof ApiError) return error;
    return new ApiError({
      status: 0,
      code: 'network_error',
      message: CLIENT_ERROR_MESSAGES.network_error,
      details: error instanceof Error ? error.message : String(error),
    });
  },
};

export const api = createClient<paths>({
  // An absolute base keeps Request construction valid outside a browser (tests run in jsdom).
  baseUrl: typeof window === 'undefined' ? '' : window.location.origin,
  credentials: 'same-origin',
  // Resolve fetch per call so tests can stub the global.
  fetch: (request: Request) => globalThis.fetch(request),
});
api.use(csrfMiddleware, errorMiddleware);

/** The data of a successful call; the middleware already threw for failures. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data } = await call;
  return data as T;
}

export type Paginated<T> = { count: number; next?: string | null; previous?: string | null; results: T[] };

export type UploadProgress = { loaded: number; total: number };

/**
 * POSTs multipart form data with XMLHttpRequest, which (unlike fetch) reports upload progress.
 * Same conventions as `api`: same-origin cookies, the CSRF header, failures thrown as ApiError.
 * The caller names the response type, derived from the generated `paths`.
 */
export function postFormWithProgress<T>(
  path: string,
  form: FormData,
  { onProgress, signal }: { onProgress?: (progress: UploadProgress) => void; signal?: AbortSignal } = {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.withCredentials = true;
    xhr.setRequestHeader('Accept', 'application/json');
    const token = readCookie('csrftoken');
    if (token) xhr.setRequestHeader('X-CSRFToken', token);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress?.({ loaded: event.loaded, total: event.total });
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as T);
        } catch {
          reject(new ApiError({ status: xhr.status, code: 'bad_response', message: CLIENT_ERROR_MESSAGES.bad_response }));
        }
        return;
      }
      reject(errorFromText(xhr.status, xhr.statusText, xhr.responseText));
    };
    xhr.onerror = () =>
      reject(new ApiError({ status: 0, code: 'network_error', message: CLIENT_ERROR_MESSAGES.network_error }));
    xhr.onabort = () => reject(new ApiError({ status: 0, code: 'aborted', message: CLIENT_ERROR_MESSAGES.aborted }));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(form);
  });
}
