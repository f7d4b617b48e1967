import { Alert, Button, Group, Paper, RangeSlider, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { errorMessage } from '@/lib/notifications';
import { formatNumber } from '@/lib/numbers';
import { datasetKeys } from '../api/keys';
import { getSeriesPoints, type SeriesWindow } from '../api/timeSeries';
import { SERIES_COLORS, sliderPositions, timeline, timestampMillis } from './timeSeriesView';

/** A tick or tooltip label: the date, with the time when the point has one. */
function formatTimestamp(millis: number, withTime: boolean): string {
  const iso = new Date(millis).toISOString();
  return withTime ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

const seriesKeys = (datasetId: number, ids: string[], span: SeriesWindow | null) =>
  [...datasetKeys.detail(datasetId), 'series', ids, span ?? 'all'] as const;

/**
 * A few series of a forecasting dataset in one chart. The whole span is read once (downsampled by
 * the server); the range slider zooms in, and a zoomed window is read again from the server at its
 * own resolution (`start`/`end`), so a long series shows its every point when zoomed far enough.
 */
export function SeriesChart({ datasetId, ids, height = 320 }: { datasetId: number; ids: string[]; height?: number }) {
  const { t } = useTranslation('datasets');
  const overview = useQuery({
    queryKey: seriesKeys(datasetId, ids, null),
    queryFn: () => getSeriesPoints(datasetId, ids),
    enabled: ids.length > 0,
  });
  const positions = useMemo(() => timeline(overview.data ?? []), [overview.data]);
  const last = Math.max(positions.length - 1, 0);
  // The slider's positions (null: the whole span); the server is asked once the slider rests.
  // Kept as timestamps, so the window stays put when a series joins or leaves the chart.
  const [range, setRange] = useState<Required<SeriesWindow> | null>(null);
  const shown = sliderPositions(positions, range);
  const [resting] = useDebouncedValue(range, 300);
  const zoomed = range !== null && resting !== null && positions.length > 0 && (resting.start > positions[0] || resting.end < positions[last]);
  const zoomWindow: SeriesWindow | null = zoomed ? resting : null;
  const detail = useQuery({
    queryKey: seriesKeys(datasetId, ids, zoomWindow),
    queryFn: () => getSeriesPoints(datasetId, ids, zoomWindow ?? {}),
    enabled: ids.length > 0 && zoomWindow !== null,
    placeholderData: keepPreviousData,
  });
  const data = zoomWindow ? (detail.data ?? overview.data) : overview.data;
  const withTime = positions.some((timestamp) => timestamp.length > 10);
  const lines = useMemo(
    () =>
      (data ?? []).map((entry) => ({
        id: entry.id,
        step: entry.step,
        total: entry.total_points,
        points: entry.timestamps.map((timestamp, index) => ({ x: timestampMillis(timestamp), y: entry.values[index] })),
      })),
    [data],
  );
  const drawn = lines.reduce((sum, line) => sum + line.points.length, 0);
  const coarsest = lines.reduce((most, line) => Math.max(most, line.step), 1);

  if (ids.length === 0) {
    return (
      <Paper withBorder p="md" data-testid="series-chart" data-points={0}>
        <Text c="dimmed" size="sm">
          {t('timeSeries.pickSeries')}
        </Text>
      </Paper>
    );
  }
  return (
    <Paper withBorder p="md" data-testid="series-chart" data-points={drawn} data-zoomed={zoomWindow ? 'true' : 'false'}>
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={5}>{t('timeSeries.chartTitle', { count: ids.length })}</Title>
          <Group gap="xs">
            {coarsest > 1 && (
              <Text size="xs" c="dimmed" data-testid="series-chart-step">
                {t('timeSeries.everyNth', { step: coarsest })}
              </Text>
            )}
            {zoomWindow && (
              <Button size="compact-xs" variant="default" onClick={() => setRange(null)} data-testid="series-zoom-reset">
                {t('timeSeries.zoomReset')}
              </Button>
            )}
          </Group>
        </Group>
        {overview.isError && <Alert color="red">{errorMessage(overview.error)}</Alert>}
        {detail.isError && <Alert color="red">{errorMessage(detail.error)}</Alert>}
        {overview.isPending ? (
          <Skeleton h={height} />
        ) : (
          <div style={{ width: '100%', height }}>
            <ResponsiveContainer width="100%" height={height}>
              <LineChart margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis
                  dataKey="x"
                  type="number"
                  scale="time"
                  domain={['dataMin', 'dataMax']}
                  allowDuplicatedCategory={false}
                  tickFormatter={(value: number) => formatTimestamp(value, withTime)}
                  minTickGap={40}
                  fontSize={11}
                />
                <YAxis fontSize={11} width={60} domain={['auto', 'auto']} tickFormatter={(value: number) => formatNumber(value, { maximumSignificantDigits: 4 })} />
                <Tooltip
                  labelFormatter={(value) => formatTimestamp(Number(value), withTime)}
                  formatter={(value) => (typeof value === 'number' ? formatNumber(value) : String(value ?? '—'))}
                />
                {lines.map((line, index) => (
                  <Line
                    key={line.id}
                    data={line.points}
                    dataKey="y"
                    name={line.id}
                    stroke={SERIES_COLORS[index % SERIES_COLORS.length]}
                    dot={false}
                    strokeWidth={1.5}
                    isAnimationActive={false}
                    connectNulls={false}
                  />
                ))}
              </LineChart>
            </ResponsiveContainer>
          </div>
        )}
        {positions.length > 2 && (
          <Stack gap={2}>
            <RangeSlider
              min={0}
              max={last}
              minRange={1}
              value={shown}
              onChange={([from, to]) => setRange({ start: positions[from], end: positions[to] })}
              label={(index) => positions[index] ?? ''}
              thumbFromLabel={t('timeSeries.zoomFrom')}
              thumbToLabel={t('timeSeries.zoomTo')}
              data-testid="series-zoom"
            />
            <Text size="xs" c="dimmed" data-testid="series-zoom-window">
              {t('timeSeries.zoomWindow', { start: positions[shown[0]], end: positions[shown[1]] })}
            </Text>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
