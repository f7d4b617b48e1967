import { translateDynamic } from '@/i18n';
import { formatPercent } from '../../api/modelVersions';

/** A model's name in the UI's language ("ETS", "Seasonal naive"); a name the catalogs do not know as written. */
export function forecastModelName(model: string): string {
  return translateDynamic(`training:forecast.models.${model}`, model);
}

/** A skill (1 - MASE / seasonal naive's) as a signed percentage ("+5.7%"), a dash without one. */
export function formatSkill(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const text = formatPercent(value, 1);
  return value > 0 ? `+${text}` : text;
}
