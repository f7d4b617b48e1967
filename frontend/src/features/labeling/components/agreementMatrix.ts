import type { AgreementReport } from '../api/tasks';

export type MatrixCell = { kappa: number | null; agreement: number | null; shared: number };

/**
 * The pairwise matrix of the report's annotators (in the report's order): Cohen's kappa, percent
 * agreement and shared samples per pair, symmetric; the diagonal is null (an annotator with themself).
 */
export function agreementMatrix(report: Pick<AgreementReport, 'annotators' | 'pairs'>): { names: string[]; ids: number[]; cells: (MatrixCell | null)[][] } {
  const ids = report.annotators.map((annotator) => annotator.annotator);
  const names = report.annotators.map((annotator) => annotator.username);
  const index = new Map(ids.map((id, position) => [id, position]));
  const cells: (MatrixCell | null)[][] = ids.map(() => ids.map(() => null));
  for (const pair of report.pairs) {
    const a = index.get(pair.annotator_a);
    const b = index.get(pair.annotator_b);
    if (a === undefined || b === undefined || a === b) continue;
    const cell = { kappa: pair.cohen_kappa ?? null, agreement: pair.percent_agreement ?? null, shared: pair.shared };
    cells[a][b] = cell;
    cells[b][a] = cell;
  }
  return { names, ids, cells };
}

/**
 * A kappa's colour on a red (no agreement beyond chance or worse) → amber → green (near perfect)
 * scale, as an HSL string; grey when undefined.
 */
export function kappaColor(kappa: number | null): string {
  if (kappa === null || Number.isNaN(kappa)) return 'var(--mantine-color-gray-2)';
  const clamped = Math.max(0, Math.min(1, kappa));
  return `hsl(${Math.round(clamped * 120)}, 70%, ${Math.round(85 - clamped * 15)}%)`;
}

/** Landis and Koch's words for a kappa, as a catalog key under `agreement.strength`. */
export function kappaStrength(kappa: number | null): 'none' | 'poor' | 'slight' | 'fair' | 'moderate' | 'substantial' | 'almostPerfect' {
  if (kappa === null || Number.isNaN(kappa)) return 'none';
  if (kappa < 0) return 'poor';
  if (kappa <= 0.2) return 'slight';
  if (kappa <= 0.4) return 'fair';
  if (kappa <= 0.6) return 'moderate';
  if (kappa <= 0.8) return 'substantial';
  return 'almostPerfect';
}
