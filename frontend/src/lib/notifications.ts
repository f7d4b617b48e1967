import { notifications } from '@mantine/notifications';
import { ApiError, isClientErrorCode } from '@/api/client';
import { currentLanguage, i18n, translateDynamic } from '@/i18n';
import { formatBytes, formatNumber } from './numbers';

/** A detail value as text in a message: bytes and numbers in the UI's language, lists joined. */
function detailText(key: string, value: unknown): string | undefined {
  if (typeof value === 'number') return key.endsWith('_bytes') ? formatBytes(value) : formatNumber(value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number')) {
    return value.map((item) => (typeof item === 'number' ? formatNumber(item) : item)).join(currentLanguage() === 'zh-CN' ? '、' : ', ');
  }
  return undefined;
}

/** The variables a catalog message may use: the error's details (formatted) and its `message`. */
function errorVariables(error: ApiError): Record<string, string> {
  const variables: Record<string, string> = {};
  if (error.details && typeof error.details === 'object' && !Array.isArray(error.details)) {
    for (const [key, value] of Object.entries(error.details as Record<string, unknown>)) {
      const text = detailText(key, value);
      if (text !== undefined) variables[key] = text;
    }
  }
  variables.message = error.message;
  return variables;
}

/**
 * What to tell the user about a failed call. API errors stay English and machine-readable on the
 * wire (`code`, `message`, `details`):
 *
 * - in Chinese, the `errors` catalog's message for a known `code`, with the error's `details` (and
 *   `message`) as interpolation variables; a message whose variables the error does not carry, or an
 *   unknown code, falls back to the server's own text;
 * - in English, the server's own message, which is English already and names the specifics (the
 *   file, the limit, the column); the catalog's English is used for the codes the client makes up
 *   itself (`network_error`, `http_502` …, whose text is not the server's) and when the server sent
 *   no message.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    const key = `errors:${error.code}`;
    if (currentLanguage() === 'en' && error.message && !isClientErrorCode(error.code)) return error.message;
    const variables = errorVariables(error);
    const template = i18n.getResource(currentLanguage(), 'errors', error.code) as unknown;
    if (typeof template === 'string') {
      const needed = [...template.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((match) => match[1]);
      if (needed.some((name) => !(name in variables))) return error.message || i18n.t('common:errors.generic');
    }
    return translateDynamic(key, error.message || i18n.t('common:errors.generic'), variables);
  }
  if (error instanceof Error) return error.message;
  return i18n.t('common:errors.generic');
}

/** Field errors from a DRF validation `details` object, flattened to "field: message" lines. */
export function errorDetailLines(error: unknown): string[] {
  if (!(error instanceof ApiError) || !error.details || typeof error.details !== 'object') return [];
  const lines: string[] = [];
  for (const [field, value] of Object.entries(error.details as Record<string, unknown>)) {
    const messages = Array.isArray(value) ? value.map(String) : [String(value)];
    for (const message of messages) {
      const line = field === 'non_field_errors' ? message : `${field}: ${message}`;
      // The envelope's message usually repeats the first field error already.
      if (line !== error.message && message !== error.message) lines.push(line);
    }
  }
  return lines;
}

export function notifyError(error: unknown, title: string = i18n.t('common:errors.requestFailed')): void {
  const details = errorDetailLines(error);
  notifications.show({
    color: 'red',
    title,
    message: [errorMessage(error), ...details].join('\n'),
    autoClose: 8000,
    style: { whiteSpace: 'pre-line' },
  });
}

export function notifySuccess(message: string, title?: string): void {
  notifications.show({ color: 'teal', title, message, autoClose: 4000 });
}
