import { currentLanguage, i18n } from '@/i18n';

// Intl formatters follow the UI's language (not the browser's), cached per language.
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();
const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();

function dateTimeFormat(): Intl.DateTimeFormat {
  const language = currentLanguage();
  let format = dateTimeFormats.get(language);
  if (!format) {
    format = new Intl.DateTimeFormat(language, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    dateTimeFormats.set(language, format);
  }
  return format;
}

function relativeFormat(): Intl.RelativeTimeFormat {
  const language = currentLanguage();
  let format = relativeFormats.get(language);
  if (!format) {
    format = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
    relativeFormats.set(language, format);
  }
  return format;
}

/** "Nov 29, 2026, 15:55:02" (en) / "2026年11月29日 15:55:02" (zh-CN), or an em dash for a missing timestamp. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTimeFormat().format(date);
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "3 minutes ago" / "3分钟前", relative to `now`. */
export function formatRelative(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const seconds = Math.round((date.getTime() - now.getTime()) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') {
      return relativeFormat().format(Math.round(seconds / size), unit);
    }
  }
  return iso;
}

/** A number of seconds as "1m 05s" / "1分05秒". */
export function formatSeconds(totalSeconds: number): string {
  const total = Math.max(0, Math.round(totalSeconds));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  if (minutes === 0) return i18n.t('common:duration.s', { s: seconds });
  const hours = Math.floor(minutes / 60);
  if (hours === 0) return i18n.t('common:duration.ms', { m: minutes, s: String(seconds).padStart(2, '0') });
  return i18n.t('common:duration.hm', { h: hours, m: String(minutes % 60).padStart(2, '0') });
}

/** Seconds between two timestamps as "1m 05s" (until now when `end` is missing). */
export function formatDuration(start: string | null | undefined, end: string | null | undefined): string {
  if (!start) return '—';
  const from = new Date(start).getTime();
  const to = end ? new Date(end).getTime() : Date.now();
  if (Number.isNaN(from) || Number.isNaN(to)) return '—';
  return formatSeconds(Math.max(0, (to - from) / 1000));
}
