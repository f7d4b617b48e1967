import { Anchor, Badge, Button, Code, Group, NativeSelect, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { WithReason } from '@/components/WithReason';
import { errorMessage } from '@/lib/notifications';
import { formatMetric, goalsOf, paretoPoints, type ParetoPoint, type StudyGoal } from '../api/multiObjective';
import { canChange, formatParam, type Study, type Trial } from '../api/studies';
import { usePromote } from '../hooks/useStudies';

const WIDTH = 520;
const HEIGHT = 320;
const PAD = { left: 64, right: 16, top: 16, bottom: 44 };
const COLORS = { front: 'var(--mantine-color-blue-6)', feasible: 'var(--mantine-color-blue-3)', infeasible: 'var(--mantine-color-gray-5)' };

function scale(values: number[], from: number, to: number) {
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (low === high) {
    low -= Math.abs(low) * 0.1 || 1;
    high += Math.abs(high) * 0.1 || 1;
  }
  const pad = (high - low) * 0.06;
  low -= pad;
  high += pad;
  return { at: (value: number) => from + ((value - low) / (high - low)) * (to - from), ticks: [0, 0.25, 0.5, 0.75, 1].map((f) => low + f * (high - low)), step: (high - low) / 4 };
}

/** A tick's label with enough decimals to tell neighbouring ticks apart (a narrow range gets more). */
function tickLabel(metric: string, value: number, step: number): string {
  const unit = metric === 'size_bytes' ? (Math.abs(value) >= 1e6 ? 1e6 : 1e3) : 1;
  const digits = Math.min(6, Math.max(metric === 'latency_ms' ? 1 : metric === 'size_bytes' ? 0 : 2, Math.ceil(-Math.log10(step / unit || 1)) + 1));
  const number = (value / unit).toFixed(digits);
  if (metric === 'latency_ms') return `${number} ms`;
  if (metric === 'size_bytes') return `${number} ${unit === 1e6 ? 'MB' : 'kB'}`;
  return number;
}

function useGoalLabel() {
  const { t } = useTranslation('automl');
  return (goal: StudyGoal) =>
    t('pareto.axis', {
      metric: goal.metric === 'latency_ms' || goal.metric === 'size_bytes' ? t(`objectives.metric.${goal.metric}`) : goal.metric,
      direction: t(`direction.${goal.direction}`),
    });
}

/** Trials as points (objective x vs objective y): the feasible non-dominated front filled and joined, infeasible ones grey. */
export function ParetoChart({
  points,
  x,
  y,
  selected,
  onSelect,
}: {
  points: ParetoPoint[];
  x: StudyGoal;
  y: StudyGoal;
  selected: number | null;
  onSelect: (trial: number) => void;
}) {
  const { t } = useTranslation('automl');
  const label = useGoalLabel();
  const sx = scale(
    points.map((p) => p.x),
    PAD.left,
    WIDTH - PAD.right,
  );
  const sy = scale(
    points.map((p) => p.y),
    HEIGHT - PAD.bottom,
    PAD.top,
  );
  const front = points.filter((p) => p.kind === 'front').sort((a, b) => a.x - b.x);
  // infeasible first so the front is drawn on top
  const order = [...points].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'infeasible' ? -1 : b.kind === 'infeasible' ? 1 : a.kind === 'feasible' ? -1 : 1));
  return (
    <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" role="img" aria-label={t('pareto.chartLabel', { x: label(x), y: label(y) })} data-testid="pareto-chart-svg">
      <line x1={PAD.left} y1={HEIGHT - PAD.bottom} x2={WIDTH - PAD.right} y2={HEIGHT - PAD.bottom} stroke="var(--mantine-color-gray-5)" />
      <line x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={HEIGHT - PAD.bottom} stroke="var(--mantine-color-gray-5)" />
      {sx.ticks.map((value) => (
        <text key={`x${value}`} x={sx.at(value)} y={HEIGHT - PAD.bottom + 14} fontSize={10} textAnchor="middle" fill="var(--mantine-color-dimmed)">
          {tickLabel(x.metric, value, sx.step)}
        </text>
      ))}
      {sy.ticks.map((value) => (
        <text key={`y${value}`} x={PAD.left - 4} y={sy.at(value) + 3} fontSize={10} textAnchor="end" fill="var(--mantine-color-dimmed)">
          {tickLabel(y.metric, value, sy.step)}
        </text>
      ))}
      <text x={(PAD.left + WIDTH - PAD.right) / 2} y={HEIGHT - 6} fontSize={11} textAnchor="middle" fill="currentColor">
        {label(x)}
      </text>
      <text x={12} y={(PAD.top + HEIGHT - PAD.bottom) / 2} fontSize={11} textAnchor="middle" fill="currentColor" transform={`rotate(-90 12 ${(PAD.top + HEIGHT - PAD.bottom) / 2})`}>
        {label(y)}
      </text>
      {front.length > 1 && (
        <polyline
          points={front.map((p) => `${sx.at(p.x)},${sy.at(p.y)}`).join(' ')}
          fill="none"
          stroke={COLORS.front}
          strokeWidth={1.5}
          strokeDasharray="4 3"
          data-testid="pareto-front-line"
          data-points={front.length}
        />
      )}
      {order.map((p) => (
        <circle
          key={p.trial.number}
          cx={sx.at(p.x)}
          cy={sy.at(p.y)}
          r={p.trial.number === selected ? 8 : 6}
          fill={p.kind === 'feasible' ? 'var(--mantine-color-body)' : COLORS[p.kind]}
          stroke={p.trial.number === selected ? 'var(--mantine-color-orange-6)' : COLORS[p.kind]}
          strokeWidth={p.trial.number === selected ? 3 : 2}
          opacity={p.kind === 'infeasible' ? 0.6 : 1}
          style={{ cursor: 'pointer' }}
          role="button"
          tabIndex={0}
          aria-label={t('pareto.pointLabel', { number: p.trial.number, x: formatMetric(x.metric, p.x), y: formatMetric(y.metric, p.y), kind: t(`pareto.kind.${p.kind}`) })}
          onClick={() => onSelect(p.trial.number)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' || event.key === ' ') onSelect(p.trial.number);
          }}
          data-testid={`pareto-point-${p.trial.number}`}
          data-kind={p.kind}
        />
      ))}
    </svg>
  );
}

function PromoteTrial({ study, trial }: { study: Study; trial: Trial }) {
  const { t } = useTranslation('automl');
  const promote = usePromote(study.id);
  const id = trial.model_version ?? promote.data?.id ?? null;
  if (id !== null)
    return (
      <Anchor component={Link} to={`/model-versions/${id}`} size="sm" data-testid={`front-${trial.number}-model-version`}>
        {trial.model_version_name ?? promote.data?.name}
      </Anchor>
    );
  const reason = canChange(study) ? null : t('view.viewerCannot');
  return (
    <Stack gap={2}>
      <WithReason reason={reason}>
        <Button size="compact-sm" disabled={!!reason} onClick={() => promote.mutate(trial.number)} loading={promote.isPending} data-testid={`front-${trial.number}-promote`}>
          {t('view.promote')}
        </Button>
      </WithReason>
      {promote.isError && (
        <Text c="red" size="xs">
          {errorMessage(promote.error)}
        </Text>
      )}
    </Stack>
  );
}

function Measurements({ trial }: { trial: Trial }) {
  const { t } = useTranslation('automl');
  const m = trial.measurements ?? {};
  return (
    <Text size="sm" c="dimmed">
      {t('pareto.measured', {
        latency: formatMetric('latency_ms', m.latency_ms ?? null),
        size: formatMetric('size_bytes', m.size_bytes ?? null),
        precision: trial.quantized ? 'int8' : 'fp32',
      })}
    </Text>
  );
}

/** The chosen point's trial: its objective values, what was measured, its parameters, and Promote. */
function TrialDetails({ study, trial, goals }: { study: Study; trial: Trial; goals: StudyGoal[] }) {
  const { t } = useTranslation('automl');
  const label = useGoalLabel();
  return (
    <Paper withBorder p="sm" data-testid="pareto-selected" data-trial={trial.number}>
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Group gap="xs">
            <Title order={6}>{t('pareto.trial', { number: trial.number })}</Title>
            {trial.on_front && <Badge size="sm">{t('pareto.kind.front')}</Badge>}
            {trial.feasible === false && (
              <Badge size="sm" color="gray">
                {t('pareto.kind.infeasible')}
              </Badge>
            )}
          </Group>
          {goals.map((goal, index) => (
            <Text size="sm" key={goal.metric}>
              {label(goal)}: <b>{formatMetric(goal.metric, trial.values?.[index])}</b>
            </Text>
          ))}
          <Measurements trial={trial} />
          <Code style={{ whiteSpace: 'normal', overflowWrap: 'anywhere' }}>
            {Object.entries(trial.params)
              .map(([key, value]) => `${key}=${formatParam(value)}`)
              .join(', ')}
          </Code>
        </Stack>
        <PromoteTrial study={study} trial={trial} />
      </Group>
    </Paper>
  );
}

/**
 * A multi-objective (or constrained) study's trade-offs: the Pareto chart (two objectives at a time),
 * the chosen point's trial with Promote, and a table of the front.
 */
export function ParetoPanel({ study, trials, finished }: { study: Study; trials: Trial[]; finished: boolean }) {
  const { t } = useTranslation('automl');
  const label = useGoalLabel();
  const goals = goalsOf(study);
  const [axes, setAxes] = useState<[number, number]>([0, Math.min(1, goals.length - 1)]);
  const [selected, setSelected] = useState<number | null>(null);
  const two = goals.length > 1;
  const points = paretoPoints(trials, study.pareto_front, axes[0], two ? axes[1] : 0);
  const frontSet = new Set(study.pareto_front ?? trials.filter((trial) => trial.on_front).map((trial) => trial.number));
  const front = trials.filter((trial) => frontSet.has(trial.number)).sort((a, b) => (a.values?.[0] ?? 0) - (b.values?.[0] ?? 0));
  const chosen = trials.find((trial) => trial.number === selected) ?? null;
  const axisOptions = goals.map((goal, index) => ({ value: String(index), label: label(goal) }));
  const target = study.target_profile;
  return (
    <Stack gap="sm" data-testid="pareto-panel" data-front={front.length}>
      <Group justify="space-between" align="flex-end">
        <Stack gap={2}>
          <Title order={5}>{t('pareto.title')}</Title>
          <Text size="sm" c="dimmed" data-testid="study-goals">
            {t('pareto.goals', { goals: goals.map(label).join(' · ') })}
            {study.constraints?.length ? ` · ${t('pareto.constraints', { constraints: study.constraints.map((c) => `${c.metric === 'latency_ms' || c.metric === 'size_bytes' ? t(`objectives.metric.${c.metric}`) : c.metric} ${c.op} ${formatMetric(c.metric, c.value)}`).join(', ') })}` : ''}
            {target ? ` · ${t('pareto.target', { name: target.name, slowdown: target.slowdown })}` : ''}
          </Text>
        </Stack>
        {goals.length > 2 && (
          <Group gap="xs">
            <NativeSelect size="xs" label={t('pareto.xAxis')} data={axisOptions} value={String(axes[0])} onChange={(event) => setAxes([Number(event.currentTarget.value), axes[1]])} data-testid="pareto-x" />
            <NativeSelect size="xs" label={t('pareto.yAxis')} data={axisOptions} value={String(axes[1])} onChange={(event) => setAxes([axes[0], Number(event.currentTarget.value)])} data-testid="pareto-y" />
          </Group>
        )}
      </Group>
      {!!study.space_notes?.length && (
        <Paper withBorder p="sm" data-testid="study-space-notes">
          <Text size="sm" fw={500}>
            {t('pareto.spaceNotes')}
          </Text>
          {study.space_notes.map((note) => (
            <Text key={note} size="sm" c="dimmed">
              {note}
            </Text>
          ))}
        </Paper>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Paper withBorder p="sm" data-testid="chart-pareto" data-points={points.length} miw={0}>
          {points.length === 0 ? (
            <Text size="sm" c="dimmed" h={200} pt="xl" ta="center" data-testid="chart-pareto-empty">
              {finished ? t('charts.noneFinished') : t('charts.waiting')}
            </Text>
          ) : (
            <>
              <ParetoChart points={points} x={goals[axes[0]]} y={two ? goals[axes[1]] : goals[0]} selected={selected} onSelect={setSelected} />
              <Group gap="md" justify="center">
                {(['front', 'feasible', 'infeasible'] as const).map((kind) => (
                  <Text key={kind} size="xs" c="dimmed">
                    <span style={{ color: COLORS[kind] }}>●</span> {t(`pareto.kind.${kind}`)}
                  </Text>
                ))}
              </Group>
            </>
          )}
        </Paper>
        {chosen ? (
          <TrialDetails study={study} trial={chosen} goals={goals} />
        ) : (
          <Paper withBorder p="sm">
            <Text size="sm" c="dimmed" data-testid="pareto-pick-hint">
              {t('pareto.pick')}
            </Text>
          </Paper>
        )}
      </SimpleGrid>
      <Table.ScrollContainer minWidth={520}>
        <Table striped withTableBorder data-testid="pareto-front-table" data-rows={front.length}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>#</Table.Th>
              {goals.map((goal) => (
                <Table.Th key={goal.metric}>{label(goal)}</Table.Th>
              ))}
              <Table.Th>{t('pareto.precision')}</Table.Th>
              <Table.Th>{t('view.columns.model')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {front.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={goals.length + 3}>
                  <Text size="sm" c="dimmed">
                    {t('pareto.emptyFront')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
            {front.map((trial) => (
              <Table.Tr key={trial.number} data-testid={`front-row-${trial.number}`} onClick={() => setSelected(trial.number)} style={{ cursor: 'pointer' }}>
                <Table.Td>{trial.number}</Table.Td>
                {goals.map((goal, index) => (
                  <Table.Td key={goal.metric}>{formatMetric(goal.metric, trial.values?.[index])}</Table.Td>
                ))}
                <Table.Td>{trial.quantized ? 'int8' : 'fp32'}</Table.Td>
                <Table.Td onClick={(event) => event.stopPropagation()}>
                  <PromoteTrial study={study} trial={trial} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
