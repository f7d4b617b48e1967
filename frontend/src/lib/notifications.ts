import { notifications } from '@mantine/notifications';
import { ApiError } from '@/api/client';
import { i18n, translateDynamic } from '@/i18n';

/**
 * What to tell the user about a failed call. API errors stay English and machine-readable on the
 * wire; the UI shows the `errors` catalog's message for a known `code` (in the UI's language, with
 * the error's `details` available for interpolation) and falls back to the server's own text.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    const details = error.details && typeof error.details === 'object' && !Array.isArray(error.details) ? error.details : {};
    return translateDynamic(`errors:${error.code}`, error.message, { ...(details as Record<string, unknown>), message: error.message });
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
