import '@mantine/charts/styles.css';
import { LineChart } from '@mantine/charts';
import { Alert, Badge, Button, Group, Paper, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { Stat } from '@/components/Stat';
import { errorMessage } from '@/lib/notifications';
import { modelVersionOf, type Job } from '../api/trainingJobs';
import { useTrainingCurves } from '../hooks/useTraining';
import { formatEta, toCurves, type CurvePoint } from './trainingCurves';

type Axis = 'step' | 'epoch';

function rows(points: CurvePoint[], keys: (keyof CurvePoint)[], axis: Axis) {
  return points.map((point) => {
    const row: Record<string, number | null> = { [axis]: point[axis] };
    for (const key of keys) row[key] = point[key];
    return row;
  });
}

/** Step points with the epoch-end validation values placed at their step. */
function stepRows(steps: CurvePoint[], epochs: CurvePoint[], trainKey: keyof CurvePoint, valKey: keyof CurvePoint) {
  const merged = [
    ...steps.map((point) => ({ step: point.step, [trainKey]: point[trainKey], [valKey]: null })),
    ...epochs.map((point) => ({ step: point.step, [trainKey]: null, [valKey]: point[valKey] })),
  ];
  return merged.sort((a, b) => a.step - b.step);
}

function Curve({
  title,
  testId,
  data,
  axis,
  series,
  points,
  percent = false,
}: {
  title: string;
  testId: string;
  data: Record<string, number | null>[];
  axis: Axis;
  series: { name: string; label: string; color: string }[];
  points: number;
  percent?: boolean;
}) {
  return (
    <Paper withBorder p="sm" data-testid={testId} data-points={points}>
      <Group justify="space-between" mb={4}>
        <Title order={6}>{title}</Title>
        <Text size="xs" c="dimmed" data-testid={`${testId}-points`}>
          {points} point{points === 1 ? '' : 's'}
        </Text>
      </Group>
      {points === 0 ? (
        <Text size="sm" c="dimmed" h={200} pt="xl" ta="center">
          Waiting for the first points…
        </Text>
      ) : (
        <LineChart
          h={200}
          data={data}
          dataKey={axis}
          series={series}
          curveType="linear"
          connectNulls
          withDots={data.length < 30}
          withLegend
          xAxisProps={{ type: 'number', domain: ['dataMin', 'dataMax'], allowDecimals: false }}
          xAxisLabel={axis}
          yAxisProps={percent ? { domain: [0, 1] } : undefined}
          valueFormatter={(value) => (percent ? `${(value * 100).toFixed(1)}%` : Number(value).toPrecision(4))}
          withTooltip
          tooltipAnimationDuration={0}
          withPointLabels={false}
          lineChartProps={{ syncId: 'training' }}
        />
      )}
    </Paper>
  );
}

/**
 * Live curves of a training job: loss, train/val accuracy (per step or per epoch), samples/s,
 * with epoch x/y and the ETA; polls only new events while the job runs.
 */
export function TrainingMonitor({ job }: { job: Pick<Job, 'id' | 'status' | 'progress' | 'result'> }) {
  const live = job.status === 'queued' || job.status === 'running';
  const { data: events = [], isError, error } = useTrainingCurves(job.id, live);
  const [axis, setAxis] = useState<Axis>('step');
  const curves = useMemo(() => toCurves(events), [events]);
  const status = job.progress;
  const lastEpoch = curves.epochs[curves.epochs.length - 1];
  const bestVal = curves.epochs.reduce<number | null>((best, point) => (point.val_acc !== null && (best === null || point.val_acc > best) ? point.val_acc : best), null);
  const model = modelVersionOf(job);

  const lossData = axis === 'step' ? stepRows(curves.steps, curves.epochs, 'loss', 'val_loss') : rows(curves.epochs, ['loss', 'val_loss'], 'epoch');
  const accData = axis === 'step' ? stepRows(curves.steps, curves.epochs, 'train_acc', 'val_acc') : rows(curves.epochs, ['train_acc', 'val_acc'], 'epoch');
  const speedData = rows(axis === 'step' ? curves.steps : curves.epochs, ['samples_per_s'], axis);
  const points = axis === 'step' ? curves.steps.length + curves.epochs.length : curves.epochs.length;

  return (
    <Stack data-testid="training-monitor" data-live={live || undefined}>
      <Group justify="space-between">
        <Group gap="xs">
          <Title order={4}>Training</Title>
          {live && (
            <Badge variant="dot" color="blue" data-testid="training-live">
              live
            </Badge>
          )}
          {status.evaluated !== undefined && status.total !== undefined && live && (
            <Badge variant="light">
              evaluating {status.evaluated}/{status.total} test images
            </Badge>
          )}
        </Group>
        <SegmentedControl
          size="xs"
          value={axis}
          onChange={(value) => setAxis(value as Axis)}
          data={[
            { value: 'step', label: 'Per step' },
            { value: 'epoch', label: 'Per epoch' },
          ]}
          data-testid="curves-axis"
        />
      </Group>
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {model && (
        <Alert color="teal" variant="light" data-testid="training-model">
          <Group justify="space-between">
            <Text size="sm">Model version {model.name} is ready.</Text>
            <Button component={Link} to={`/model-versions/${model.id}`} size="xs" data-testid="training-model-link">
              Open the evaluation report
            </Button>
          </Group>
        </Alert>
      )}
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }}>
        <Stat label="Epoch" value={status.epoch !== undefined ? `${status.epoch}/${status.epochs ?? '?'}` : '—'} testId="train-epoch" />
        <Stat label="Step" value={status.step !== undefined ? `${status.step}/${status.steps ?? '?'}` : '—'} testId="train-step" />
        <Stat label="ETA" value={live ? formatEta(status.eta_s) : '—'} testId="train-eta" />
        <Stat label="Samples/s" value={status.samples_per_s !== undefined ? status.samples_per_s.toFixed(0) : '—'} testId="train-speed" />
        <Stat label="Last val acc" value={lastEpoch?.val_acc != null ? `${(lastEpoch.val_acc * 100).toFixed(1)}%` : '—'} testId="train-val-acc" />
        <Stat label="Best val acc" value={bestVal !== null ? `${(bestVal * 100).toFixed(1)}%` : '—'} testId="train-best-val-acc" />
      </SimpleGrid>
      <Text size="xs" c="dimmed" data-testid="curve-point-count" data-steps={curves.steps.length} data-epochs={curves.epochs.length}>
        {curves.steps.length} step points · {curves.epochs.length} epoch points
        {status.message ? ` · ${status.message}` : ''}
      </Text>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Curve
          title="Loss"
          testId="curve-loss"
          data={lossData}
          axis={axis}
          points={points}
          series={[
            { name: 'loss', label: 'train loss', color: 'blue.6' },
            { name: 'val_loss', label: 'val loss', color: 'orange.6' },
          ]}
        />
        <Curve
          title="Accuracy"
          testId="curve-accuracy"
          data={accData}
          axis={axis}
          points={points}
          percent
          series={[
            { name: 'train_acc', label: 'train acc', color: 'blue.6' },
            { name: 'val_acc', label: 'val acc', color: 'orange.6' },
          ]}
        />
        <Curve
          title="Throughput (samples/s)"
          testId="curve-speed"
          data={speedData}
          axis={axis}
          points={speedData.length}
          series={[{ name: 'samples_per_s', label: 'samples/s', color: 'teal.6' }]}
        />
      </SimpleGrid>
      {!live && !model && job.status === 'succeeded' && (
        <Text size="sm" c="dimmed">
          This job did not record a model version.
        </Text>
      )}
    </Stack>
  );
}
