import { translateDynamic } from '@/i18n';
import { formatNumber } from '../api/modelVersions';

/** A report's split ("test") in the UI's language; a split the catalogs do not know as the report names it. */
export function splitName(split: string): string {
  return translateDynamic(`training:report.splits.${split}`, split);
}

/** The name of a model version's dataset version (from `names`), `#id` until the names have loaded, a dash without one. */
export function datasetVersionLabel(version: { dataset_version: number | null }, names: Map<number, string>): string {
  if (version.dataset_version === null) return '—';
  return names.get(version.dataset_version) ?? `#${version.dataset_version}`;
}

/** A table row's value as a report cell: numbers formatted, empty values as a dash. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'number') return formatNumber(value);
  return String(value);
}

/** The columns a row listing shows: the most important features first (report order otherwise), at most `limit`. */
export function shownColumns(values: Record<string, unknown> | undefined, importance: { feature: string }[], limit = 6): string[] {
  const keys = Object.keys(values ?? {});
  const ranked = importance.map((row) => row.feature).filter((feature) => keys.includes(feature));
  return [...ranked, ...keys.filter((key) => !ranked.includes(key))].slice(0, limit);
}

/**
 * A chart's legend and tooltip in the order of its series (recharts sorts both by name unless told
 * otherwise, which puts "F1" before "precision" and reorders translated names by code point).
 */
export function inSeriesOrder(names: string[]) {
  const rank = (key: unknown) => {
    const index = names.indexOf(String(key));
    return index === -1 ? names.length : index;
  };
  return {
    legendProps: { itemSorter: (item: { dataKey?: unknown }) => rank(item.dataKey) },
    tooltipProps: { itemSorter: (item: { dataKey?: unknown }) => rank(item.dataKey) },
  };
}
