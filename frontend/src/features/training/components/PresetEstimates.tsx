import { Alert, Badge, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatSeconds } from '@/lib/datetime';
import { formatBytes, formatNumber, formatPercent } from '@/lib/numbers';
import type { PresetEstimate, WorkersOnline } from '../api/estimates';

type WorkerClass = WorkersOnline['classes'][number];

/** "16-core CPU" or the GPU's name, with "2 × " when several workers of that kind are online. */
function useWorkerName() {
  const { t } = useTranslation('training');
  const kind = (worker: Pick<WorkerClass, 'device' | 'name' | 'cpu_count'>) =>
    worker.device === 'gpu' ? worker.name : t('estimates.cpuCores', { count: worker.cpu_count });
  const fromClass = (workerClass: string, classes: WorkerClass[]) => {
    const known = classes.find((item) => item.worker_class === workerClass);
    if (known) return kind(known);
    const [device, name] = workerClass.split(':', 2);
    return device === 'gpu' ? name : t('estimates.cpuCores', { count: Number(name) || 1 });
  };
  return { kind, fromClass };
}

/** The workers a training job would run on now, or that none is online for its queue. */
export function WorkersSummary({ workers }: { workers: WorkersOnline }) {
  const { t } = useTranslation('training');
  const { kind } = useWorkerName();
  if (workers.online === 0) {
    return (
      <Alert color="yellow" variant="light" data-testid="estimates-no-worker">
        {t('estimates.noWorker', { queue: workers.queue })}
      </Alert>
    );
  }
  const kinds = workers.classes
    .map((worker) => (worker.count > 1 ? t('estimates.workerKind', { count: worker.count, name: kind(worker) }) : kind(worker)))
    .join(', ');
  return (
    <Text size="sm" c="dimmed" data-testid="estimates-workers">
      {t('estimates.workersOnline', { count: workers.online, kinds })}
    </Text>
  );
}

function Basis({ measured, testId }: { measured: boolean; testId: string }) {
  const { t } = useTranslation('training');
  return (
    <Badge size="xs" variant={measured ? 'light' : 'outline'} color={measured ? 'teal' : 'gray'} data-testid={testId} data-basis={measured ? 'measured' : 'none'}>
      {measured ? t('estimates.measured') : t('estimates.notMeasured')}
    </Badge>
  );
}

function Figure({ label, value, detail, measured, testId }: { label: string; value: string; detail: string; measured: boolean; testId: string }) {
  return (
    <Stack gap={0} data-testid={testId}>
      <Group gap={6} wrap="nowrap">
        <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
          {label}
        </Text>
        <Basis measured={measured} testId={`${testId}-basis`} />
      </Group>
      <Text size="sm" fw={measured ? 600 : 400} c={measured ? undefined : 'dimmed'} data-testid={`${testId}-value`}>
        {value}
      </Text>
      {detail && (
        <Text size="xs" c="dimmed">
          {detail}
        </Text>
      )}
    </Stack>
  );
}

/**
 * A preset's figures in plain words: about how long it takes on the workers online, what it reached
 * last time on this dataset, how big and fast its model is. Each says whether it was measured; a
 * figure nothing measured says why, never a guess.
 */
export function PresetEstimates({ estimate, workers }: { estimate: PresetEstimate; workers: WorkersOnline }) {
  const { t } = useTranslation('training');
  const { fromClass } = useWorkerName();
  const { time, quality, size, speed } = estimate;
  const testId = `preset-estimate-${estimate.preset}`;

  const timeValue =
    time.basis === 'measured' && time.seconds !== null
      ? t('estimates.time.measured', { count: workers.online, duration: formatSeconds(time.seconds) })
      : workers.online === 0
        ? t('estimates.time.noWorker')
        : t('estimates.time.none');
  const timeDetail =
    time.basis === 'measured' && time.worker_class ? t('estimates.time.basis', { count: time.runs, worker: fromClass(time.worker_class, workers.classes) }) : '';

  const qualityMeasured = quality.basis === 'measured' && quality.value !== null;
  const qualityValue = !qualityMeasured
    ? t('estimates.quality.none')
    : quality.metric === 'accuracy'
      ? t('estimates.quality.accuracy', { value: formatPercent(quality.value) })
      : t('estimates.quality.mae', { value: formatNumber(quality.value, { maximumSignificantDigits: 3 }) });
  const best = quality.metric === 'accuracy' ? formatPercent(quality.best) : formatNumber(quality.best, { maximumSignificantDigits: 3 });
  const qualityDetail = qualityMeasured
    ? [
        t('estimates.quality.basis', { version: quality.model_version_name ?? '', datasetVersion: quality.dataset_version_name ?? '' }),
        quality.runs > 1 ? t('estimates.quality.best', { count: quality.runs, best }) : '',
      ]
        .filter(Boolean)
        .join(' ')
    : '';

  const sizeMeasured = size.basis === 'measured' && size.bytes !== null;
  const speedMeasured = speed.basis === 'measured' && speed.latency_ms !== null;
  const ms = formatNumber(speed.latency_ms, { maximumFractionDigits: speed.latency_ms !== null && speed.latency_ms < 10 ? 1 : 0 });
  const sizeValue =
    sizeMeasured && speedMeasured
      ? t('estimates.size.sizeAndSpeed', { size: formatBytes(size.bytes), ms })
      : sizeMeasured
        ? t('estimates.size.sizeOnly', { size: formatBytes(size.bytes) })
        : speedMeasured
          ? t('estimates.size.speedOnly', { ms })
          : t('estimates.size.none');
  const sizeDetail = [
    sizeMeasured ? t('estimates.size.basisSize', { version: size.model_version_name ?? '' }) : '',
    speedMeasured ? t('estimates.size.basisSpeed', { count: speed.calls }) : sizeMeasured ? t('estimates.size.noSpeed') : '',
  ]
    .filter(Boolean)
    .join(' ');

  return (
    <Stack gap={6} mt="sm" data-testid={testId}>
      <Figure label={t('estimates.time.label')} value={timeValue} detail={timeDetail} measured={time.basis === 'measured'} testId={`${testId}-time`} />
      <Figure label={t('estimates.quality.label')} value={qualityValue} detail={qualityDetail} measured={qualityMeasured} testId={`${testId}-quality`} />
      <Figure
        label={t('estimates.size.label')}
        value={sizeValue}
        detail={sizeDetail}
        measured={sizeMeasured || speedMeasured}
        testId={`${testId}-size`}
      />
    </Stack>
  );
}
