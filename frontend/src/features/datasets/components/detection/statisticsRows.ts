import type { components } from '@/api/schema';
import { formatNumber } from '@/lib/numbers';

export type BoxHistogram = components['schemas']['BoxHistogram'];
export type DetectionStatisticsData = components['schemas']['DetectionStatistics'];

/** The server caps the boxes-per-image histogram here: its last bar counts this many boxes or more. */
const MAX_BOXES_BIN = 20;

/** A share of the image as a short percentage: 0.00025 → "0.025%". */
function share(value: number): string {
  return `${formatNumber(value * 100, { maximumSignificantDigits: 2 })}%`;
}

/** Bars of the boxes-per-image histogram: "1", "2", …, "20+" for the capped last bin. */
export function perImageRows(histogram: BoxHistogram, orMore: (n: string) => string) {
  return histogram.counts.map((count, index) => {
    const n = Math.round(histogram.bins[index]);
    const last = index === histogram.counts.length - 1 && n >= MAX_BOXES_BIN;
    return { bucket: last ? orMore(formatNumber(n)) : formatNumber(n), count };
  });
}

/** Bars of the relative-area histogram, each named by its range of image shares. */
export function areaRows(histogram: BoxHistogram, range: (from: string, to: string) => string) {
  return histogram.counts.map((count, index) => ({ bucket: range(share(histogram.bins[index]), share(histogram.bins[index + 1] ?? 1)), count }));
}
