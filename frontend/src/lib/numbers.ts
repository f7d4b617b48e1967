import { currentLanguage } from '@/i18n';

/** A number in the UI's language: "12,345.6" (grouping and decimals from Intl). */
export function formatNumber(value: number | null | undefined, options: Intl.NumberFormatOptions = {}): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  return new Intl.NumberFormat(currentLanguage(), options).format(value);
}

/** A fraction as a percentage: 0.9861 → "98.6%" (`digits` decimals). */
export function formatPercent(value: number | null | undefined, digits = 1): string {
  return formatNumber(value, { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Bytes as "1.2 MB" (SI units, localised number). */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || Number.isNaN(bytes)) return '—';
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return formatNumber(value, { style: 'unit', unit: units[unit], unitDisplay: 'short', maximumFractionDigits: unit ? 1 : 0 });
}
