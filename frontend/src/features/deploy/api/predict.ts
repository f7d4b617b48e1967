import { ApiError, errorFromText, readCookie } from '@/api/client';
import { i18n } from '@/i18n';
import type { components } from '@/api/schema';
import { isForecastingTemplate, type ForecastInstance, type ForecastInstances, type ForecastPrediction } from '@/lib/forecasting';

/** The hosted prediction answer (the serving protocol shared with the server package). */
export type PredictionAnswer = components['schemas']['PredictResponse'];
export type PredictResult = PredictionAnswer & { roundTripMs: number };

export type InputKind = 'image' | 'text' | 'tabular' | 'forecast';

/** What a deployment's prediction endpoint takes, from its model's template. */
export function inputKindOf(template: string | null | undefined): InputKind {
  if (isForecastingTemplate(template)) return 'forecast';
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
 * Parses the try-it panel's rows: one JSON object, or a JSON array of objects (a small batch).
 * Throws an Error naming the problem.
 */
export function parseRows(text: string): Record<string, unknown>[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(i18n.t('deploy:try.rowNotJson'));
  }
  const rows = Array.isArray(value) ? value : [value];
  if (rows.length === 0 || rows.some((row) => !row || typeof row !== 'object' || Array.isArray(row))) throw new Error(i18n.t('deploy:try.rowNotObject'));
  return rows as Record<string, unknown>[];
}

/** One image's answer from a detector: its boxes (in the original image's pixels) by descending score and the image's size. */
export type DetectionPrediction = components['schemas']['DetectionPrediction'];

/** Whether a model of this template is a detector (its try takes a score threshold and a box cap, not top-k). */
export function isDetectorTemplate(template: string | null | undefined): boolean {
  return template === 'object_detection';
}

/** A detector's predictions (one per image) when the answer's `kind` is `detection_prediction`, else null. */
export function detectionsOf(answer: PredictionAnswer): DetectionPrediction[] | null {
  return answer.kind === 'detection_prediction' ? (answer.predictions as DetectionPrediction[]) : null;
}

/** A detector's defaults and bounds (the hosted API's `score_threshold` and `max_detections`). */
export const DETECTION_DEFAULTS = { scoreThreshold: 0.3, maxDetections: 100, maxDetectionsLimit: 1000 };

/** The most instances one try takes (the server's SAMPAN_TRY_MAX_BATCH). */
export const TRY_MAX_BATCH = 10;

/** What one try sends: images, texts or table rows (one, or a batch of up to TRY_MAX_BATCH), or series' histories to forecast. */
export type TryInput = { files: File[] } | { texts: string[] } | { rows: Record<string, unknown>[] } | { forecast: ForecastInstances };

/** The session-authenticated try route of a model version or a deployment (no deployment key). */
export function tryUrl(target: { modelVersion: number } | { deployment: number }): string {
  const path = 'modelVersion' in target ? `/api/v1/model-versions/${target.modelVersion}/try/` : `/api/v1/deployments/${target.deployment}/try/`;
  return `${window.location.origin}${path}`;
}

/**
 * Tries a model version (or a deployment's current one) signed in: the browser session and its
 * CSRF token, no deployment key, so nothing secret is kept in the page. The request and the answer
 * are the hosted endpoint's. Failures are thrown as ApiError with the server's message (a 401 here
 * is the session's, so the app sends the user to the login page as for any other call).
 */
export async function tryPredict({
  url,
  topK,
  detection,
  ...input
}: { url: string; topK: number; detection?: { scoreThreshold: number; maxDetections: number } } & TryInput): Promise<PredictResult> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = readCookie('csrftoken');
  if (token) headers['X-CSRFToken'] = token;
  let body: BodyInit;
  if ('files' in input) {
    const form = new FormData();
    for (const file of input.files) form.append('file', file, file.name);
    if (detection) {
      form.append('score_threshold', String(detection.scoreThreshold));
      form.append('max_detections', String(detection.maxDetections));
    } else {
      form.append('top_k', String(topK));
    }
    body = form;
  } else {
    headers['Content-Type'] = 'application/json';
    if ('forecast' in input) {
      body = JSON.stringify(input.forecast);
    } else {
      const instances = 'texts' in input ? input.texts.map((text) => ({ text })) : input.rows;
      body = JSON.stringify({ instances, top_k: topK });
    }
  }
  const started = performance.now();
  let response: Response;
  try {
    response = await globalThis.fetch(url, { method: 'POST', headers, body, credentials: 'same-origin' });
  } catch (error) {
    throw new ApiError({
      status: 0,
      code: 'network_error',
      message: i18n.t('deploy:try.unreachable'),
      details: error instanceof Error ? error.message : String(error),
    });
  }
  const text = await response.text();
  const roundTripMs = performance.now() - started;
  if (!response.ok) throw errorFromText(response.status, response.statusText, text);
  try {
    return { ...(JSON.parse(text) as PredictionAnswer), roundTripMs };
  } catch {
    throw new ApiError({ status: response.status, code: 'bad_response', message: i18n.t('deploy:try.unreadable') });
  }
}

/** A forecaster's predictions (one per series) when the answer's `kind` is `forecast_prediction`, else null. */
export function forecastsOf(answer: { kind: string; predictions: unknown }): ForecastPrediction[] | null {
  return answer.kind === 'forecast_prediction' ? (answer.predictions as ForecastPrediction[]) : null;
}

/** Where a forecast request's 400 puts the problem (ForecastInputError details), when it says. */
export type ForecastProblem = { series?: number; id?: string; position?: number; field?: string };

export function forecastProblemOf(details: unknown): ForecastProblem | null {
  if (!details || typeof details !== 'object') return null;
  const { series, id, position, field } = details as Record<string, unknown>;
  const problem: ForecastProblem = {};
  if (typeof series === 'number') problem.series = series;
  if (typeof id === 'string' && id !== '') problem.id = id;
  if (typeof position === 'number') problem.position = position;
  if (typeof field === 'string' && field !== '') problem.field = field;
  return Object.keys(problem).length ? problem : null;
}

function isNumberText(text: string): boolean {
  return text.trim() !== '' && Number.isFinite(Number(text));
}

/**
 * Parses Try it's history for a forecaster: either JSON (a ForecastInstances body, a list of
 * instances, or one instance) or CSV lines "timestamp,value" (one series) or "id,timestamp,value"
 * (several, grouped by id in the order met); a header line is skipped, blank lines and spaces
 * ignored. Throws an Error naming the line or field at fault.
 */
export function parseHistory(text: string): ForecastInstances {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error(i18n.t('deploy:forecastTry.empty'));
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      throw new Error(i18n.t('deploy:forecastTry.notJson'));
    }
    const body = Array.isArray(value) ? { instances: value } : value && typeof value === 'object' && 'instances' in value ? value : { instances: [value] };
    const instances = (body as { instances: unknown }).instances;
    if (!Array.isArray(instances) || instances.length === 0) throw new Error(i18n.t('deploy:forecastTry.noInstances'));
    instances.forEach((instance, index) => {
      const ok =
        instance &&
        typeof instance === 'object' &&
        Array.isArray((instance as ForecastInstance).timestamps) &&
        Array.isArray((instance as ForecastInstance).values);
      if (!ok) throw new Error(i18n.t('deploy:forecastTry.badInstance', { index }));
    });
    return body as ForecastInstances;
  }
  const series = new Map<string, ForecastInstance>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const cells = line.split(/[,;\t]/).map((cell) => cell.trim().replace(/^"(.*)"$/, '$1'));
    const number = index + 1;
    if (cells.length !== 2 && cells.length !== 3) throw new Error(i18n.t('deploy:forecastTry.badLine', { line: number }));
    const value = cells[cells.length - 1];
    if (!isNumberText(value)) {
      // a header ("timestamp,value") before the first row
      if (series.size === 0) return;
      throw new Error(i18n.t('deploy:forecastTry.badValue', { line: number, value }));
    }
    const id = cells.length === 3 ? cells[0] : '';
    const timestamp = cells[cells.length - 2];
    if (timestamp === '') throw new Error(i18n.t('deploy:forecastTry.badLine', { line: number }));
    const instance = series.get(id) ?? { timestamps: [], values: [] };
    if (!series.has(id)) {
      if (id) instance.id = id;
      series.set(id, instance);
    }
    instance.timestamps.push(timestamp);
    instance.values.push(Number(value));
  });
  if (series.size === 0) throw new Error(i18n.t('deploy:forecastTry.empty'));
  return { instances: [...series.values()] };
}
