import { notifications } from '@mantine/notifications';
import { ApiError } from '@/api/client';

/** The server's message for an ApiError, or a generic one for anything else. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
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

export function notifyError(error: unknown, title = 'Request failed'): void {
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
