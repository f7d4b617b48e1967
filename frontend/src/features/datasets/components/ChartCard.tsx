import { BarChart } from '@mantine/charts';
import { Group, Paper, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { formatNumber } from '@/lib/numbers';
import { axisWidth } from './chartAxis';

/** A statistics chart's card: its title (and a badge beside it), the chart, or a sentence when it has nothing to draw. */
export function ChartCard({
  title,
  testId,
  points,
  empty,
  emptyText,
  badge,
  children,
}: {
  title: string;
  testId: string;
  points: number;
  empty: boolean;
  emptyText: string;
  badge?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Paper withBorder p="md" data-testid={testId} data-points={points}>
      <Group justify="space-between" mb="sm" gap="xs">
        <Title order={5}>{title}</Title>
        {badge}
      </Group>
      {empty ? (
        <Text c="dimmed" size="sm">
          {emptyText}
        </Text>
      ) : (
        children
      )}
    </Paper>
  );
}

/** Pixels per bar: every category keeps its row and its name, however many there are. */
const ROW_HEIGHT = 26;

/** Bars across, one row per category (class names, ranges), each named on the axis. */
export function CategoryBars({ rows, series, color, testId }: { rows: { name: string; count: number }[]; series: string; color: string; testId?: string }) {
  return (
    <BarChart
      h={Math.max(120, rows.length * ROW_HEIGHT + 40)}
      data={rows}
      dataKey="name"
      orientation="vertical"
      series={[{ name: 'count', label: series, color }]}
      yAxisProps={{ interval: 0, width: axisWidth(rows.map((row) => row.name)) }}
      valueFormatter={(value) => formatNumber(value)}
      gridAxis="x"
      tickLine="x"
      data-testid={testId}
    />
  );
}

/** Upright bars, one per bucket (sizes, counts), named under the axis. */
export function ColumnBars({ rows, series, color, axisLabel }: { rows: { bucket: string; count: number }[]; series: string; color: string; axisLabel?: string }) {
  return (
    <BarChart
      h={250}
      data={rows}
      dataKey="bucket"
      series={[{ name: 'count', label: series, color }]}
      valueFormatter={(value) => formatNumber(value)}
      xAxisLabel={axisLabel}
      tickLine="y"
    />
  );
}
