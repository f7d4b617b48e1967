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

export type InputKind = 'image' | 'text' | 'tabular';

/** What a deployment's prediction endpoint takes, from its model's template. */
export function inputKindOf(template: string | null | undefined): InputKind {
  if (template?.startsWith('text_')) return 'text';
  if (template?.startsWith('tabular_')) return 'tabular';
  return 'image';
}

/** A model's preprocessing spec: image, text or tabular, told apart by `kind` (null: none). */
export type Preprocessing = NonNullable<components['schemas']['ModelVersion']['preprocessing']>;

/**
 * An example row for a tabular model, from its preprocessing spec's features: the training fill
 * value of numeric columns, the first category of categorical ones, the fill day of date columns;
 * null for other models or a spec that lists no features.
 */
export function exampleRow(preprocessing: Preprocessing | null | undefined): Record<string, string | number> | null {
  if (preprocessing?.kind !== 'tabular' || preprocessing.features.length === 0) return null;
  const row: Record<string, string | number> = {};
  for (const feature of preprocessing.features) {
    if (feature.type === 'categorical') row[feature.name] = feature.categories?.[0] ?? '';
    else if (feature.type === 'datetime') row[feature.name] = new Date((feature.fill ?? 0) * 86_400_000).toISOString().slice(0, 10);
    else row[feature.name] = typeof feature.fill === 'number' ? Math.round(feature.fill * 1000) / 1000 : 0;
  }
  return row;
}

/**
 * Parses the try-it panel's row for a tabular model: a JSON object of column -> value.
 * Throws an Error naming the problem.
 */
export function parseRow(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('The row is not valid JSON: write it as {"column": value, ...}.');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('The row must be a JSON object: {"column": value, ...}.');
  return value as Record<string, unknown>;
}

/**
 * Calls a deployment's prediction endpoint the way an outside client does: the deployment key as
 * a bearer token and no session cookie, so the try-it panel proves the key works on its own.
 * Images go as a multipart upload, text and table rows as JSON instances. Failures are thrown as
 * PredictionError with the server's message.
 */
export async function predict({
  url,
  apiKey,
  topK,
  ...input
}: { url: string; apiKey: string; topK: number } & (
  | { file: File }
  | { text: string }
  | { row: Record<string, unknown> }
)): Promise<PredictResult> {
  const headers: Record<string, string> = { Authorization: `Bearer ${apiKey.trim()}`, Accept: 'application/json' };
  let body: BodyInit;
  if ('file' in input) {
    const form = new FormData();
    form.append('file', input.file, input.file.name);
    form.append('top_k', String(topK));
    body = form;
  } else {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify({ instances: ['text' in input ? { text: input.text } : input.row], top_k: topK });
  }
  const started = performance.now();
  let response: Response;
  try {
    response = await globalThis.fetch(url, { method: 'POST', headers, body, credentials: 'omit' });
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
