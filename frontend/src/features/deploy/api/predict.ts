import { ApiError, errorFromText } from '@/api/client';
import type { components } from '@/api/schema';

/** The hosted prediction answer (the serving protocol shared with the server package). */
export type PredictionAnswer = components['schemas']['PredictResponse'];
export type PredictResult = PredictionAnswer & { roundTripMs: number };

/**
 * A refused prediction call. Its 401 is about the deployment key, not the user's session, so it
 * must not send the user to the login page as other 401 answers do.
 */
export class PredictionError extends ApiError {
  override get isUnauthenticated(): boolean {
    return false;
  }
}

function predictionError(error: ApiError): PredictionError {
  return new PredictionError({ status: error.status, code: error.code, message: error.message, details: error.details });
}

/**
 * Calls a deployment's prediction endpoint the way an outside client does: a multipart upload with
 * the deployment key as a bearer token and no session cookie, so the try-it panel proves the key
 * works on its own. Failures are thrown as ApiError with the server's message.
 */
export async function predictImage({
  url,
  apiKey,
  file,
  topK,
}: {
  url: string;
  apiKey: string;
  file: File;
  topK: number;
}): Promise<PredictResult> {
  const form = new FormData();
  form.append('file', file, file.name);
  form.append('top_k', String(topK));
  const started = performance.now();
  let response: Response;
  try {
    response = await globalThis.fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey.trim()}`, Accept: 'application/json' },
      body: form,
      credentials: 'omit',
    });
  } catch (error) {
    throw new PredictionError({
      status: 0,
      code: 'network_error',
      message: 'Cannot reach the prediction endpoint.',
      details: error instanceof Error ? error.message : String(error),
    });
  }
  const text = await response.text();
  const roundTripMs = performance.now() - started;
  if (!response.ok) {
    const error = predictionError(errorFromText(response.status, response.statusText, text));
    const retryAfter = response.headers.get('Retry-After');
    if (response.status === 429 && retryAfter) error.message = `${error.message} (retry after ${retryAfter}s)`;
    throw error;
  }
  try {
    return { ...(JSON.parse(text) as PredictionAnswer), roundTripMs };
  } catch {
    throw new PredictionError({ status: response.status, code: 'bad_response', message: 'The prediction endpoint sent an unreadable answer.' });
  }
}
