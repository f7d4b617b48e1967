import { translateDynamic } from '@/i18n';
import { formatNumber } from '@/lib/numbers';

/**
 * A reason from the API in the UI's language: ``training:reasons.<code>`` with the reason's values
 * (numbers formatted; ``count`` is passed as ``n`` so i18next does not look for plural keys), else the
 * API's English sentence (an older stored reason, or a code this build does not know).
 */
export function translatedReason(
  reason: string,
  code?: string | null,
  params?: Record<string, string | number> | null,
): string {
  if (!code) return reason;
  const values = Object.fromEntries(
    Object.entries(params ?? {}).map(([key, value]) => [
      key === 'count' ? 'n' : key,
      typeof value === 'number' ? formatNumber(value) : value,
    ]),
  );
  return translateDynamic(`training:reasons.${code}`, reason, values);
}
