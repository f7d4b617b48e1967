import '@mantine/charts/styles.css';
import { LineChart } from '@mantine/charts';
import { Alert, Badge, Button, Group, Paper, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Stat } from '@/components/Stat';
import { progressMessage } from '@/features/jobs';
import { errorMessage } from '@/lib/notifications';
import { formatNumber, formatPercent } from '@/lib/numbers';
import { recommendationOf } from '../api/recommendations';
import { modelVersionOf, type Job } from '../api/trainingJobs';
import { RecommendationChoices } from './PresetRecommendation';
import { targetFitOf } from '../api/targetFit';
import { TargetFitPanel } from './TargetFitPanel';
import { useTrainingCurves } from '../hooks/useTraining';
import { formatEta, toCurves, type CurvePoint } from './trainingCurves';
import { isForecastingTemplate } from '@/lib/forecasting';
import { validationReports } from './forecast/forecastFormat';
import { ForecastValidation } from './forecast/ForecastValidation';

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
  const { t } = useTranslation('training');
  return (
    <Paper withBorder p="sm" data-testid={testId} data-points={points}>
      <Group justify="space-between" mb={4}>
        <Title order={6}>{title}</Title>
        <Text size="xs" c="dimmed" data-testid={`${testId}-points`}>
          {t('monitor.points', { count: points })}
        </Text>
      </Group>
      {points === 0 ? (
        <Text size="sm" c="dimmed" h={200} pt="xl" ta="center">
          {t('monitor.waiting')}
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
          xAxisLabel={t(`monitor.axis.${axis}`)}
          yAxisProps={percent ? { domain: [0, 1] } : undefined}
          valueFormatter={(value) => (percent ? formatPercent(value) : formatNumber(Number(value), { maximumSignificantDigits: 4 }))}
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
export function TrainingMonitor({ job }: { job: Pick<Job, 'id' | 'status' | 'progress' | 'result'> & { params?: unknown } }) {
  const { t } = useTranslation('training');
  const live = job.status === 'queued' || job.status === 'running';
  const { data: events = [], isError, error } = useTrainingCurves(job.id, live);
  const [axis, setAxis] = useState<Axis>('step');
  const curves = useMemo(() => toCurves(events), [events]);
  const forecastReports = useMemo(() => validationReports(events), [events]);
  // a forecaster fits candidates on backtest windows: no epochs to plot, its validation MASE instead
  const forecaster = isForecastingTemplate((job.params as { template?: string } | null | undefined)?.template) || forecastReports.length > 0;
  const status = job.progress;
  const progressLine = progressMessage(status as Parameters<typeof progressMessage>[0]);
  const lastEpoch = curves.epochs[curves.epochs.length - 1];
  // a detector validates by mAP@.5, not accuracy: its stats and curve show that instead
  const detector = curves.epochs.some((point) => point.val_map50 !== null);
  const valKey = detector ? 'val_map50' : 'val_acc';
  const bestVal = curves.epochs.reduce<number | null>((best, point) => {
    const value = point[valKey];
    return value !== null && (best === null || value > best) ? value : best;
  }, null);
  const lastVal = lastEpoch?.[valKey] ?? null;
  const model = modelVersionOf(job);
  const recommendation = recommendationOf(job.params);
  // data-parallel ranks the job asked for (absent: one process)
  const processes = (job.params as { processes?: number } | null | undefined)?.processes ?? 1;
  const targetFit = targetFitOf(job);

  const lossData = axis === 'step' ? stepRows(curves.steps, curves.epochs, 'loss', 'val_loss') : rows(curves.epochs, ['loss', 'val_loss'], 'epoch');
  const accData = detector
    ? rows(curves.epochs, ['val_map50'], axis)
    : axis === 'step'
      ? stepRows(curves.steps, curves.epochs, 'train_acc', 'val_acc')
      : rows(curves.epochs, ['train_acc', 'val_acc'], 'epoch');
  const speedData = rows(axis === 'step' ? curves.steps : curves.epochs, ['samples_per_s'], axis);
  const points = axis === 'step' ? curves.steps.length + curves.epochs.length : curves.epochs.length;

  return (
    <Stack data-testid="training-monitor" data-live={live || undefined}>
      <Group justify="space-between">
        <Group gap="xs">
          <Title order={4}>{t('monitor.title')}</Title>
          {live && (
            <Badge variant="dot" color="blue" data-testid="training-live">
              {t('monitor.live')}
            </Badge>
          )}
          {processes > 1 && (
            <Badge variant="light" color="grape" data-testid="training-processes-badge">
              {t('monitor.processes', { count: processes })}
            </Badge>
          )}
          {status.evaluated !== undefined && status.total !== undefined && live && (
            <Badge variant="light">
              {t('monitor.evaluating', { done: status.evaluated, total: status.total })}
            </Badge>
          )}
        </Group>
        {!forecaster && (
          <SegmentedControl
            size="xs"
            value={axis}
            onChange={(value) => setAxis(value as Axis)}
            data={[
              { value: 'step', label: t('monitor.perStep') },
              { value: 'epoch', label: t('monitor.perEpoch') },
            ]}
            data-testid="curves-axis"
          />
        )}
      </Group>
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {model && (
        <Alert color="teal" variant="light" data-testid="training-model">
          <Group justify="space-between">
            <Text size="sm">{t('monitor.modelReady', { name: model.name })}</Text>
            <Button component={Link} to={`/model-versions/${model.id}`} size="xs" data-testid="training-model-link">
              {t('monitor.openReport')}
            </Button>
          </Group>
        </Alert>
      )}
      {recommendation && (
        <Paper withBorder p="sm">
          {/* parameter titles from the catalog (the name where it has none) */}
          <RecommendationChoices recommendation={recommendation} params={[]} testId="job-recommendation" />
        </Paper>
      )}
      {targetFit && <TargetFitPanel fit={targetFit} />}
      {forecaster && <ForecastValidation reports={forecastReports} fraction={status.fraction} />}
      {!forecaster && (
        <>
          <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }}>
            <Stat label={t('monitor.stats.epoch')} value={status.epoch !== undefined ? `${status.epoch}/${status.epochs ?? '?'}` : '—'} testId="train-epoch" />
            <Stat label={t('monitor.stats.step')} value={status.step !== undefined ? `${status.step}/${status.steps ?? '?'}` : '—'} testId="train-step" />
            <Stat label={t('monitor.stats.eta')} value={live ? formatEta(status.eta_s) : '—'} testId="train-eta" />
            <Stat
              label={t('monitor.stats.speed')}
              value={status.samples_per_s !== undefined ? formatNumber(status.samples_per_s, { maximumFractionDigits: 0 }) : '—'}
              testId="train-speed"
            />
            <Stat label={detector ? t('monitor.stats.lastValMap50') : t('monitor.stats.lastValAcc')} value={lastVal !== null ? formatPercent(lastVal) : '—'} testId="train-val-acc" />
            <Stat label={detector ? t('monitor.stats.bestValMap50') : t('monitor.stats.bestValAcc')} value={bestVal !== null ? formatPercent(bestVal) : '—'} testId="train-best-val-acc" />
          </SimpleGrid>
          <Text size="xs" c="dimmed" data-testid="curve-point-count" data-steps={curves.steps.length} data-epochs={curves.epochs.length}>
            {t('monitor.pointCount', { steps: curves.steps.length, epochs: curves.epochs.length })}
            {progressLine ? ` · ${progressLine}` : ''}
          </Text>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Curve
              title={t('monitor.curves.loss')}
              testId="curve-loss"
              data={lossData}
              axis={axis}
              points={points}
              series={[
                { name: 'loss', label: t('monitor.series.trainLoss'), color: 'blue.6' },
                { name: 'val_loss', label: t('monitor.series.valLoss'), color: 'orange.6' },
              ]}
            />
            <Curve
              title={detector ? t('monitor.curves.map50') : t('monitor.curves.accuracy')}
              testId="curve-accuracy"
              data={accData}
              axis={axis}
              points={detector ? accData.length : points}
              percent
              series={
                detector
                  ? [{ name: 'val_map50', label: t('monitor.series.valMap50'), color: 'orange.6' }]
                  : [
                      { name: 'train_acc', label: t('monitor.series.trainAcc'), color: 'blue.6' },
                      { name: 'val_acc', label: t('monitor.series.valAcc'), color: 'orange.6' },
                    ]
              }
            />
            <Curve
              title={t('monitor.curves.speed')}
              testId="curve-speed"
              data={speedData}
              axis={axis}
              points={speedData.length}
              series={[{ name: 'samples_per_s', label: t('monitor.series.samplesPerS'), color: 'teal.6' }]}
            />
          </SimpleGrid>
        </>
      )}
      {!live && !model && job.status === 'succeeded' && (
        <Text size="sm" c="dimmed">
          {t('monitor.noModel')}
        </Text>
      )}
    </Stack>
  );
}
