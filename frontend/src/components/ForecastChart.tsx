import { Group, Text } from '@mantine/core';
import { useMemo, useState, type MouseEvent } from 'react';
import { formatNumber } from '@/lib/numbers';

/** The names a forecast chart shows (legend and hover), in the page's language. */
export type ForecastChartLabels = {
  actual: string;
  forecast: string;
  interval: string;
  baseline?: string;
  forecastStart: string;
};

/**
 * A series' history and forecast on one time axis: `timestamps` span both; `actual` the observed
 * values (null where missing; it may go on into the forecast's steps, as a test window's actual
 * values do); `mean`, `lower`/`upper` (the interval, drawn as a band) and `baseline` (dashed, e.g.
 * seasonal naive) cover the steps from `forecastStart` on.
 */
export type ForecastChartData = {
  timestamps: string[];
  actual: (number | null)[];
  forecastStart: number;
  mean: number[];
  lower?: number[];
  upper?: number[];
  baseline?: number[];
};

const WIDTH = 720;
const HEIGHT = 260;
const PAD = { left: 56, right: 12, top: 12, bottom: 28 };
const COLORS = { actual: 'var(--mantine-color-dark-4)', forecast: 'var(--mantine-color-blue-6)', band: 'var(--mantine-color-blue-2)', baseline: 'var(--mantine-color-orange-6)' };

function short(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude >= 1e6 || magnitude < 1e-3)) return value.toExponential(2);
  return formatNumber(value, { maximumSignificantDigits: 4 });
}

/** A polyline's path through the finite points, broken where a value is missing. */
function linePath(points: [number, number | null][]): string {
  let path = '';
  let pen = false;
  for (const [x, y] of points) {
    if (y === null || !Number.isFinite(y)) {
      pen = false;
      continue;
    }
    path += `${pen ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`;
    pen = true;
  }
  return path;
}

/** Up to `count` evenly spaced "nice" ticks between low and high. */
function ticks(low: number, high: number, count = 5): number[] {
  if (!(high > low)) return [low];
  const raw = (high - low) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(low / step) * step; v <= high + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/**
 * A forecast against its history as an SVG line chart: the history (and actual values over the
 * forecast, when known) in grey, the forecast in blue over its interval band, an optional baseline
 * dashed, a marker where the forecast starts; hovering shows a step's values.
 */
export function ForecastChart({ data, labels, testId, height = HEIGHT }: { data: ForecastChartData; labels: ForecastChartLabels; testId: string; height?: number }) {
  const [hover, setHover] = useState<number | null>(null);
  const { timestamps, actual, forecastStart, mean, lower = [], upper = [], baseline = [] } = data;
  const n = timestamps.length;
  const band = lower.length > 0 && lower.length === upper.length;
  const geometry = useMemo(() => {
    const values = [...actual, ...mean, ...lower, ...upper, ...baseline].filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    let low = values.length ? Math.min(...values) : 0;
    let high = values.length ? Math.max(...values) : 1;
    if (high === low) {
      low -= 1;
      high += 1;
    }
    const margin = (high - low) * 0.05;
    low -= margin;
    high += margin;
    const x = (i: number) => PAD.left + (n > 1 ? (i / (n - 1)) * (WIDTH - PAD.left - PAD.right) : (WIDTH - PAD.left - PAD.right) / 2);
    const y = (v: number) => PAD.top + ((high - v) / (high - low)) * (height - PAD.top - PAD.bottom);
    return { low, high, x, y };
  }, [actual, mean, lower, upper, baseline, n, height]);
  const { x, y } = geometry;
  const at = (offset: number) => forecastStart + offset;
  const actualPath = linePath(actual.map((v, i) => [x(i), v === null ? null : y(v)]));
  // the forecast joins the last observed value before it, so the two lines meet
  const joint = forecastStart > 0 ? actual[forecastStart - 1] : null;
  const meanPoints: [number, number | null][] = mean.map((v, i) => [x(at(i)), y(v)]);
  if (joint !== null && joint !== undefined) meanPoints.unshift([x(forecastStart - 1), y(joint)]);
  const meanPath = linePath(meanPoints);
  const baselinePath = linePath(baseline.map((v, i) => [x(at(i)), y(v)]));
  const bandPath = band
    ? `M${upper.map((v, i) => `${x(at(i)).toFixed(1)},${y(v).toFixed(1)}`).join('L')}L${lower
        .map((v, i) => `${x(at(i)).toFixed(1)},${y(v).toFixed(1)}`)
        .reverse()
        .join('L')}Z`
    : '';
  const yTicks = ticks(geometry.low, geometry.high);
  const xTicks = Array.from(new Set([0, forecastStart, n - 1].filter((i) => i >= 0 && i < n)));

  const onMove = (event: MouseEvent<SVGSVGElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    if (box.width === 0 || n === 0) return;
    const px = ((event.clientX - box.left) / box.width) * WIDTH;
    const index = Math.round(((px - PAD.left) / (WIDTH - PAD.left - PAD.right)) * (n - 1));
    setHover(Math.max(0, Math.min(n - 1, index)));
  };
  const hoverLines =
    hover === null
      ? []
      : [
          timestamps[hover],
          actual[hover] !== null && actual[hover] !== undefined ? `${labels.actual}: ${short(actual[hover] as number)}` : null,
          hover >= forecastStart && mean[hover - forecastStart] !== undefined ? `${labels.forecast}: ${short(mean[hover - forecastStart])}` : null,
          band && hover >= forecastStart && lower[hover - forecastStart] !== undefined
            ? `${labels.interval}: ${short(lower[hover - forecastStart])} – ${short(upper[hover - forecastStart])}`
            : null,
          labels.baseline && hover >= forecastStart && baseline[hover - forecastStart] !== undefined
            ? `${labels.baseline}: ${short(baseline[hover - forecastStart])}`
            : null,
        ].filter((line): line is string => line !== null);
  const tipX = hover === null ? 0 : Math.min(x(hover) + 8, WIDTH - 200);

  return (
    <div data-testid={testId} data-points={n} data-horizon={mean.length} data-band={band || undefined} data-baseline={baseline.length > 0 || undefined}>
      <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        width="100%"
        role="img"
        aria-label={`${labels.actual} · ${labels.forecast}`}
        onMouseMove={onMove}
        onMouseLeave={() => setHover(null)}
        style={{ display: 'block', fontSize: 11 }}
      >
        {yTicks.map((tick) => (
          <g key={tick}>
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(tick)} y2={y(tick)} stroke="var(--mantine-color-gray-3)" strokeWidth={1} />
            <text x={PAD.left - 6} y={y(tick) + 4} textAnchor="end" fill="var(--mantine-color-dimmed)">
              {short(tick)}
            </text>
          </g>
        ))}
        {xTicks.map((i) => (
          <text key={i} x={x(i)} y={height - 8} textAnchor={i === 0 ? 'start' : i === n - 1 ? 'end' : 'middle'} fill="var(--mantine-color-dimmed)">
            {timestamps[i]}
          </text>
        ))}
        {forecastStart > 0 && forecastStart < n && (
          <line
            x1={x(forecastStart - 0.5)}
            x2={x(forecastStart - 0.5)}
            y1={PAD.top}
            y2={height - PAD.bottom}
            stroke="var(--mantine-color-gray-5)"
            strokeDasharray="2 3"
            data-testid={`${testId}-start`}
          >
            <title>{labels.forecastStart}</title>
          </line>
        )}
        {band && <path d={bandPath} fill={COLORS.band} fillOpacity={0.6} stroke="none" data-testid={`${testId}-band`} />}
        <path d={actualPath} fill="none" stroke={COLORS.actual} strokeWidth={1.5} data-testid={`${testId}-actual`} />
        {baselinePath && <path d={baselinePath} fill="none" stroke={COLORS.baseline} strokeWidth={1.5} strokeDasharray="5 4" data-testid={`${testId}-baseline`} />}
        <path d={meanPath} fill="none" stroke={COLORS.forecast} strokeWidth={2} data-testid={`${testId}-mean`} />
        {hover !== null && (
          <g pointerEvents="none">
            <line x1={x(hover)} x2={x(hover)} y1={PAD.top} y2={height - PAD.bottom} stroke="var(--mantine-color-gray-6)" strokeWidth={1} />
            <rect x={tipX} y={PAD.top} width={196} height={8 + hoverLines.length * 15} rx={4} fill="var(--mantine-color-body)" stroke="var(--mantine-color-gray-4)" />
            {hoverLines.map((line, index) => (
              <text key={index} x={tipX + 6} y={PAD.top + 16 + index * 15} fill="var(--mantine-color-text)" fontWeight={index === 0 ? 600 : 400}>
                {line}
              </text>
            ))}
          </g>
        )}
      </svg>
      <Group gap="md" mt={4}>
        <LegendItem color={COLORS.actual} label={labels.actual} />
        <LegendItem color={COLORS.forecast} label={labels.forecast} />
        {band && <LegendItem color={COLORS.band} label={labels.interval} block />}
        {labels.baseline && baseline.length > 0 && <LegendItem color={COLORS.baseline} label={labels.baseline} dashed />}
      </Group>
    </div>
  );
}

function LegendItem({ color, label, dashed = false, block = false }: { color: string; label: string; dashed?: boolean; block?: boolean }) {
  return (
    <Group gap={6} wrap="nowrap">
      <svg width={18} height={10} aria-hidden>
        {block ? (
          <rect x={0} y={1} width={18} height={8} fill={color} />
        ) : (
          <line x1={0} x2={18} y1={5} y2={5} stroke={color} strokeWidth={2} strokeDasharray={dashed ? '4 3' : undefined} />
        )}
      </svg>
      <Text size="xs">{label}</Text>
    </Group>
  );
}
