import '@mantine/charts/styles.css';
import { BarChart, LineChart } from '@mantine/charts';
import { Paper, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { formatParam, type SearchDimension, type StudyResults, type Trial } from '../api/studies';

const COLORS = ['blue.6', 'teal.6', 'grape.6', 'orange.6', 'cyan.6', 'pink.6', 'lime.7', 'indigo.6', 'red.6', 'yellow.7'];

function Card({ title, testId, points, children }: { title: string; testId: string; points: number; children: ReactNode }) {
  return (
    <Paper withBorder p="sm" data-testid={testId} data-points={points}>
      <Title order={6} mb={4}>
        {title}
      </Title>
      {points === 0 ? (
        <Text size="sm" c="dimmed" h={200} pt="xl" ta="center">
          Waiting for trials…
        </Text>
      ) : (
        children
      )}
    </Paper>
  );
}

/** Each completed trial's value and the best value so far. */
export function HistoryChart({ history }: { history: StudyResults['history'] }) {
  return (
    <Card title="Optimization history" testId="chart-history" points={history.length}>
      <LineChart
        h={220}
        data={history}
        dataKey="trial"
        series={[
          { name: 'value', label: 'Trial value', color: 'gray.5' },
          { name: 'best', label: 'Best so far', color: 'blue.6' },
        ]}
        curveType="stepAfter"
        withLegend
        xAxisProps={{ type: 'number', domain: ['dataMin', 'dataMax'], allowDecimals: false }}
        xAxisLabel="trial"
        valueFormatter={(value) => Number(value).toFixed(3)}
        tooltipAnimationDuration={0}
      />
    </Card>
  );
}

export function ImportanceChart({ importances }: { importances: Record<string, number> }) {
  const data = Object.entries(importances).map(([param, importance]) => ({ param, importance }));
  return (
    <Card title="Parameter importances (PED-ANOVA)" testId="chart-importances" points={data.length}>
      <BarChart h={220} data={data} dataKey="param" orientation="vertical" series={[{ name: 'importance', color: 'teal.6' }]} valueFormatter={(value) => Number(value).toFixed(2)} yAxisProps={{ width: 110 }} />
    </Card>
  );
}

/** Validation value per epoch of every trial: where the pruner cut the weak ones. */
export function IntermediateChart({ trials }: { trials: Trial[] }) {
  const shown = trials.filter((trial) => trial.intermediate.length > 0);
  const epochs = new Map<number, Record<string, number>>();
  for (const trial of shown) {
    for (const point of trial.intermediate) {
      const row = epochs.get(point.epoch) ?? { epoch: point.epoch };
      row[`t${trial.number}`] = point.value;
      epochs.set(point.epoch, row);
    }
  }
  const data = [...epochs.values()].sort((a, b) => a.epoch - b.epoch);
  return (
    <Card title="Intermediate values per epoch" testId="chart-intermediate" points={shown.length}>
      <LineChart
        h={220}
        data={data}
        dataKey="epoch"
        series={shown.map((trial, index) => ({ name: `t${trial.number}`, label: `#${trial.number}${trial.state === 'pruned' ? ' (pruned)' : ''}`, color: COLORS[index % COLORS.length] }))}
        curveType="linear"
        connectNulls={false}
        withLegend={shown.length <= 10}
        xAxisProps={{ type: 'number', domain: ['dataMin', 'dataMax'], allowDecimals: false }}
        xAxisLabel="epoch"
        valueFormatter={(value) => Number(value).toFixed(3)}
        tooltipAnimationDuration={0}
      />
    </Card>
  );
}

type Axis = { name: string; position: (value: unknown) => number; ticks: string[] };

function axisFor(dim: SearchDimension): Axis {
  if (dim.type === 'categorical') {
    const choices = (dim.choices ?? []).map(String);
    const step = choices.length > 1 ? 1 / (choices.length - 1) : 0.5;
    return { name: dim.name, position: (value) => Math.max(0, choices.indexOf(String(value))) * step, ticks: choices };
  }
  const low = Number(dim.low);
  const high = Number(dim.high);
  const scale = (value: number) => (dim.log ? Math.log(value) : value);
  const span = scale(high) - scale(low) || 1;
  return { name: dim.name, position: (value) => (scale(Number(value)) - scale(low)) / span, ticks: [formatParam(low), formatParam(high)] };
}

/**
 * Parallel coordinates: one vertical axis per searched parameter plus the objective; each finished
 * trial is a line through its values, darker for better values.
 */
export function ParallelCoordinates({ space, trials, maximize }: { space: SearchDimension[]; trials: Trial[]; maximize: boolean }) {
  const done = trials.filter((trial) => trial.value !== null && (trial.state === 'complete' || trial.state === 'pruned'));
  const values = done.map((trial) => trial.value as number);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const axes: Axis[] = [
    ...space.map((dim) => axisFor(dim)),
    { name: 'value', position: (value) => (hi > lo ? (Number(value) - lo) / (hi - lo) : 0.5), ticks: [lo.toFixed(3), hi.toFixed(3)] },
  ];
  const width = 640;
  const height = 220;
  const pad = { left: 40, right: 40, top: 20, bottom: 30 };
  const x = (index: number) => pad.left + (index * (width - pad.left - pad.right)) / Math.max(1, axes.length - 1);
  const y = (fraction: number) => pad.top + (1 - Math.min(1, Math.max(0, fraction))) * (height - pad.top - pad.bottom);
  return (
    <Card title="Parallel coordinates" testId="chart-parallel" points={done.length}>
      <svg viewBox={`0 0 ${width} ${height}`} width="100%" role="img" aria-label="Parallel coordinates of the trials">
        {done.map((trial) => {
          const quality = hi > lo ? ((trial.value as number) - lo) / (hi - lo) : 1;
          const strength = maximize ? quality : 1 - quality;
          const points = axes.map((axis, index) => {
            const raw = axis.name === 'value' ? trial.value : (trial.params as Record<string, unknown>)[axis.name];
            return `${x(index)},${y(axis.position(raw))}`;
          });
          return (
            <polyline
              key={trial.number}
              points={points.join(' ')}
              fill="none"
              stroke={trial.state === 'pruned' ? 'var(--mantine-color-gray-5)' : 'var(--mantine-color-blue-7)'}
              strokeOpacity={0.25 + 0.75 * strength}
              strokeWidth={1.5}
              data-testid="parallel-line"
            >
              <title>{`#${trial.number}: ${trial.value?.toFixed(4)}`}</title>
            </polyline>
          );
        })}
        {axes.map((axis, index) => (
          <g key={axis.name}>
            <line x1={x(index)} x2={x(index)} y1={y(0)} y2={y(1)} stroke="var(--mantine-color-gray-6)" />
            <text x={x(index)} y={height - 8} textAnchor="middle" fontSize={11}>
              {axis.name}
            </text>
            <text x={x(index) + 3} y={y(1) - 4} fontSize={9} fill="var(--mantine-color-dimmed)">
              {axis.ticks[axis.ticks.length - 1]}
            </text>
            <text x={x(index) + 3} y={y(0) + 10} fontSize={9} fill="var(--mantine-color-dimmed)">
              {axis.ticks[0]}
            </text>
          </g>
        ))}
      </svg>
    </Card>
  );
}
