import '@mantine/charts/styles.css';
import { BarChart, LineChart } from '@mantine/charts';
import { Paper, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatParam, IMPORTANCES_MIN_COMPLETE, type SearchDimension, type StudyResults, type Trial } from '../api/studies';

const COLORS = ['blue.6', 'teal.6', 'grape.6', 'orange.6', 'cyan.6', 'pink.6', 'lime.7', 'indigo.6', 'red.6', 'yellow.7'];

/**
 * A chart's card. With nothing to draw it says why instead: `empty` when given (what the chart still
 * needs), else "Waiting for trials…" while the study runs and "No trial finished." once it is over.
 */
function Card({ title, testId, points, finished, empty, children }: { title: string; testId: string; points: number; finished: boolean; empty?: string; children: ReactNode }) {
  const { t } = useTranslation('automl');
  return (
    <Paper withBorder p="sm" data-testid={testId} data-points={points} miw={0}>
      <Title order={6} mb={4}>
        {title}
      </Title>
      {points === 0 ? (
        <Text size="sm" c="dimmed" h={200} pt="xl" ta="center" data-testid={`${testId}-empty`}>
          {empty ?? (finished ? t('charts.noneFinished') : t('charts.waiting'))}
        </Text>
      ) : (
        children
      )}
    </Paper>
  );
}

/** Each completed trial's value and the best value so far. */
export function HistoryChart({ history, finished = false }: { history: StudyResults['history']; finished?: boolean }) {
  const { t } = useTranslation('automl');
  return (
    <Card title={t('charts.history')} testId="chart-history" points={history.length} finished={finished}>
      <LineChart
        h={220}
        data={history}
        dataKey="trial"
        series={[
          { name: 'value', label: t('charts.trialValue'), color: 'gray.5' },
          { name: 'best', label: t('charts.bestSoFar'), color: 'blue.6' },
        ]}
        curveType="stepAfter"
        withLegend
        xAxisProps={{ type: 'number', domain: ['dataMin', 'dataMax'], allowDecimals: false }}
        xAxisLabel={t('charts.trial')}
        valueFormatter={(value) => Number(value).toFixed(3)}
        tooltipAnimationDuration={0}
      />
    </Card>
  );
}

/** PED-ANOVA importances; until there are enough completed trials it says how many it needs. */
export function ImportanceChart({ importances, completed = 0, finished = false }: { importances: Record<string, number>; completed?: number; finished?: boolean }) {
  const { t } = useTranslation('automl');
  const data = Object.entries(importances).map(([param, importance]) => ({ param, importance }));
  const empty =
    completed < IMPORTANCES_MIN_COMPLETE ? t('charts.importancesNeed', { count: completed, need: IMPORTANCES_MIN_COMPLETE }) : finished ? t('charts.importancesNoSpread') : undefined;
  return (
    <Card title={t('charts.importances')} testId="chart-importances" points={data.length} finished={finished} empty={empty}>
      <BarChart h={220} data={data} dataKey="param" orientation="vertical" series={[{ name: 'importance', label: t('charts.importance'), color: 'teal.6' }]} valueFormatter={(value) => Number(value).toFixed(2)} yAxisProps={{ width: 110 }} />
    </Card>
  );
}

/** Validation value per epoch of every trial: where the pruner cut the weak ones. */
export function IntermediateChart({ trials, finished = false }: { trials: Trial[]; finished?: boolean }) {
  const { t } = useTranslation('automl');
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
    <Card title={t('charts.intermediate')} testId="chart-intermediate" points={shown.length} finished={finished}>
      <LineChart
        h={220}
        data={data}
        dataKey="epoch"
        series={shown.map((trial, index) => ({ name: `t${trial.number}`, label: trial.state === 'pruned' ? t('charts.seriesPruned', { number: trial.number }) : `#${trial.number}`, color: COLORS[index % COLORS.length] }))}
        curveType="linear"
        connectNulls={false}
        withLegend={shown.length <= 10}
        xAxisProps={{ type: 'number', domain: ['dataMin', 'dataMax'], allowDecimals: false }}
        xAxisLabel={t('charts.epoch')}
        valueFormatter={(value) => Number(value).toFixed(3)}
        tooltipAnimationDuration={0}
      />
    </Card>
  );
}

// the objective's axis (a name no template parameter takes)
const VALUE_AXIS = '__value__';

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
export function ParallelCoordinates({ space, trials, maximize, finished = false }: { space: SearchDimension[]; trials: Trial[]; maximize: boolean; finished?: boolean }) {
  const { t } = useTranslation('automl');
  const done = trials.filter((trial) => trial.value !== null && (trial.state === 'complete' || trial.state === 'pruned'));
  const values = done.map((trial) => trial.value as number);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const axes: Axis[] = [
    ...space.map((dim) => axisFor(dim)),
    { name: VALUE_AXIS, position: (value) => (hi > lo ? (Number(value) - lo) / (hi - lo) : 0.5), ticks: [lo.toFixed(3), hi.toFixed(3)] },
  ];
  const width = 640;
  const height = 220;
  const pad = { left: 40, right: 40, top: 20, bottom: 40 };
  const x = (index: number) => pad.left + (index * (width - pad.left - pad.right)) / Math.max(1, axes.length - 1);
  const y = (fraction: number) => pad.top + (1 - Math.min(1, Math.max(0, fraction))) * (height - pad.top - pad.bottom);
  return (
    <Card title={t('charts.parallel')} testId="chart-parallel" points={done.length} finished={finished}>
      <svg viewBox={`0 0 ${width} ${height}`} width="100%" role="img" aria-label={t('charts.parallelAria')}>
        {done.map((trial) => {
          const quality = hi > lo ? ((trial.value as number) - lo) / (hi - lo) : 1;
          const strength = maximize ? quality : 1 - quality;
          const points = axes.map((axis, index) => {
            const raw = axis.name === VALUE_AXIS ? trial.value : (trial.params as Record<string, unknown>)[axis.name];
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
            {/* neighbouring names alternate between two lines so long parameter names do not overlap */}
            <text x={x(index)} y={height - 4 - (index % 2) * 13} textAnchor="middle" fontSize={11}>
              {axis.name === VALUE_AXIS ? t('charts.value') : axis.name}
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
