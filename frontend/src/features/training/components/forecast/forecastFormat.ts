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

/** A forecaster's validation report during training: a candidate's, or the chosen forecaster's (it adds sMAPE and coverage). */
export type ValidationReport = { seq: number; message: string; mase: number; smape: number | null; coverage: number | null; chosen: boolean };

/**
 * The progress reports of a forecaster's training that carry a validation MASE (the trainer
 * reports each candidate's over the backtest windows, then the chosen forecaster's with sMAPE and
 * coverage), oldest first.
 */
export function validationReports(events: { seq: number; message?: string; data: unknown }[]): ValidationReport[] {
  const out: ValidationReport[] = [];
  for (const event of events) {
    const data = event.data as { kind?: string; message?: string; val_mase?: number | null; val_smape?: number | null; val_coverage?: number | null };
    if (data.kind !== 'progress' || typeof data.val_mase !== 'number') continue;
    const chosen = data.val_smape !== undefined || data.val_coverage !== undefined;
    out.push({
      seq: event.seq,
      message: data.message ?? event.message ?? '',
      mase: data.val_mase,
      smape: data.val_smape ?? null,
      coverage: data.val_coverage ?? null,
      chosen,
    });
  }
  return out;
}
