import { Accordion, Alert, Badge, Button, Group, NumberInput, Paper, Skeleton, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '@/api/client';
import { WithReason } from '@/components/WithReason';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage, notifySuccess } from '@/lib/notifications';
import { formatNumber } from '@/lib/numbers';
import { getProfile, isForecastingDataset } from '../api/datasets';
import { datasetKeys } from '../api/keys';
import { isTimeSeriesProfile } from '../api/timeSeries';
import { isJob, MAX_HORIZON, validateHorizon, validateRatios, type DatasetJob, type DatasetVersion, type DatasetVersionCreateBody, type Ratios } from '../api/versions';
import { DatasetJobProgress } from './DatasetJobProgress';
import { useDataset } from '../hooks/useDatasets';
import { useCreateVersion, useVersions } from '../hooks/useVersions';

const SPLITS = ['train', 'val', 'test'] as const;

function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || !error.details || typeof error.details !== 'object') return {};
  return Object.fromEntries(
    Object.entries(error.details as Record<string, unknown>).map(([key, value]) => [key, Array.isArray(value) ? value.join(' ') : String(value)]),
  );
}

function CreateVersionForm({ datasetId, disabled }: { datasetId: number; disabled: boolean }) {
  const { t } = useTranslation(['datasets', 'common']);
  const [ratios, setRatios] = useState<Ratios>({ train_ratio: 0.8, val_ratio: 0.1, test_ratio: 0.1 });
  const [seed, setSeed] = useState<number | string>('');
  const [note, setNote] = useState('');
  const [reviewedOnly, setReviewedOnly] = useState(false);
  const create = useCreateVersion(datasetId);
  const queryClient = useQueryClient();
  const [jobId, setJobId] = useState<number | null>(null);
  const local = validateRatios(ratios);
  const server = fieldErrors(create.error);
  const invalid = Object.keys(local).length > 0;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (invalid) return;
    create.mutate(
      { ...ratios, seed: typeof seed === 'number' ? seed : undefined, note: note.trim(), reviewed_only: reviewedOnly },
      {
        onSuccess: (answer) => {
          if (isJob(answer)) {
            setJobId(answer.id); // 202: a datasets.version job makes it; its progress shows below
            return;
          }
          notifySuccess(t('versions.created', { name: answer.name, count: answer.sample_count, formatted: formatNumber(answer.sample_count) }));
        },
      },
    );
  };
  const jobFinished = useCallback(
    (job: DatasetJob) => {
      void queryClient.invalidateQueries({ queryKey: datasetKeys.versions(datasetId) });
      const result = job.result as { number?: number; sample_count?: number } | null;
      if (job.status === 'succeeded' && result?.number !== undefined) {
        notifySuccess(t('versionsJob.done', { name: `V${result.number}`, formatted: formatNumber(result.sample_count ?? 0) }));
      }
    },
    [datasetId, queryClient, t],
  );

  const ratioInput = (key: keyof Ratios, label: string) => (
    <NumberInput
      label={label}
      value={ratios[key]}
      onChange={(value) => setRatios((previous) => ({ ...previous, [key]: typeof value === 'number' ? value : Number.NaN }))}
      min={0}
      max={1}
      step={0.05}
      decimalScale={3}
      w={130}
      error={local[key] ?? server[key]}
      data-testid={`version-${key.replace('_ratio', '')}-ratio`}
    />
  );

  return (
    <Paper withBorder p="md">
      <form onSubmit={submit}>
        <Stack gap="sm">
          <Title order={5}>{t('versions.createTitle')}</Title>
          <Text size="sm" c="dimmed">
            {t('versions.createHint')}
          </Text>
          {create.isError && !Object.keys(server).some((key) => key.endsWith('_ratio') || key === 'seed') && (
            <Alert color="red" variant="light" data-testid="version-create-error">
              {errorMessage(create.error)}
            </Alert>
          )}
          <Group align="flex-start">
            {ratioInput('train_ratio', t('versions.splits.train'))}
            {ratioInput('val_ratio', t('versions.splits.val'))}
            {ratioInput('test_ratio', t('versions.splits.test'))}
            <NumberInput
              label={t('versions.seed')}
              placeholder={t('versions.seedRandom')}
              value={seed}
              onChange={setSeed}
              min={0}
              allowDecimal={false}
              w={130}
              error={server.seed}
              data-testid="version-seed"
            />
            <TextInput label={t('versions.note')} value={note} onChange={(event) => setNote(event.currentTarget.value)} w={220} data-testid="version-note" />
          </Group>
          <Switch
            label={t('versions.reviewedOnly')}
            description={t('versions.reviewedOnlyHint')}
            checked={reviewedOnly}
            onChange={(event) => setReviewedOnly(event.currentTarget.checked)}
            data-testid="version-reviewed-only"
          />
          <Group>
            <WithReason reason={disabled ? t('common:permissions.viewerReadOnly') : invalid ? t('versions.fixRatios') : null}>
              <Button type="submit" disabled={disabled || invalid} loading={create.isPending} data-testid="version-create-submit">
                {t('versions.create')}
              </Button>
            </WithReason>
          </Group>
          {jobId !== null && (
            <DatasetJobProgress key={jobId} datasetId={datasetId} jobId={jobId} title={t('datasetJob.versionTitle')} onFinished={jobFinished} />
          )}
        </Stack>
      </form>
    </Paper>
  );
}

/**
 * A forecasting dataset's version: split by time, so it asks the horizon h (the last h steps of each
 * series are the test window, the h before the validation window) instead of ratios.
 */
function CreateForecastVersionForm({ datasetId, disabled }: { datasetId: number; disabled: boolean }) {
  const { t } = useTranslation(['datasets', 'common']);
  const [horizon, setHorizon] = useState<number | string>('');
  const [note, setNote] = useState('');
  const create = useCreateVersion(datasetId);
  const local = validateHorizon(horizon);
  // One season (7 for daily data, 12 for monthly) is the usual first horizon: offered as the placeholder.
  const profile = useQuery({ queryKey: datasetKeys.profile(datasetId), queryFn: () => getProfile(datasetId) });
  const season = isTimeSeriesProfile(profile.data) ? profile.data.season_length : null;
  const server = fieldErrors(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (local || typeof horizon !== 'number') return;
    // The ratios are ignored for a forecasting dataset: the split is by time.
    create.mutate({ horizon, note: note.trim() } as DatasetVersionCreateBody, {
      onSuccess: (version) => {
        if (!isJob(version)) notifySuccess(t('versions.createdForecast', { name: version.name, horizon })); // forecasting: always in the request
      },
    });
  };
  return (
    <Paper withBorder p="md">
      <form onSubmit={submit}>
        <Stack gap="sm">
          <Title order={5}>{t('versions.createTitle')}</Title>
          <Text size="sm" c="dimmed">
            {t('versions.createForecastHint')}
          </Text>
          {create.isError && !server.horizon && (
            <Alert color="red" variant="light" data-testid="version-create-error">
              {errorMessage(create.error)}
            </Alert>
          )}
          <Group align="flex-start">
            <NumberInput
              label={t('versions.horizon')}
              description={t('versions.horizonHint')}
              placeholder={season && season > 1 ? t('versions.horizonSeason', { season }) : undefined}
              value={horizon}
              onChange={setHorizon}
              min={1}
              max={MAX_HORIZON}
              allowDecimal={false}
              allowNegative={false}
              w={220}
              error={horizon !== '' && local ? t(`versions.${local}`, { max: MAX_HORIZON }) : server.horizon}
              data-testid="version-horizon"
            />
            <TextInput label={t('versions.note')} value={note} onChange={(event) => setNote(event.currentTarget.value)} w={220} mt={22} data-testid="version-note" />
          </Group>
          <Group>
            <WithReason reason={disabled ? t('common:permissions.viewerReadOnly') : local ? t('versions.horizonFirst') : null}>
              <Button type="submit" disabled={disabled || !!local} loading={create.isPending} data-testid="version-create-submit">
                {t('versions.create')}
              </Button>
            </WithReason>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

/** A forecasting version's observations and series per split: train, the validation window, the test window. */
function ForecastVersionCounts({ version }: { version: DatasetVersion }) {
  const { t } = useTranslation('datasets');
  const timeSplit = version.time_split;
  return (
    <Stack gap={4}>
      <Table fz="sm" verticalSpacing={4} data-testid={`version-counts-${version.id}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th />
            {SPLITS.map((split) => (
              <Table.Th key={split}>{t(`versions.splits.${split}`)}</Table.Th>
            ))}
            <Table.Th>{t('versions.total')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          <Table.Tr>
            <Table.Td>{t('versions.observations')}</Table.Td>
            {SPLITS.map((split) => (
              <Table.Td key={split} data-testid={`version-split-${split}-${version.id}`}>
                {formatNumber(version.totals[split] ?? 0)}
              </Table.Td>
            ))}
            <Table.Td>{formatNumber(version.sample_count)}</Table.Td>
          </Table.Tr>
          {timeSplit && (
            <Table.Tr>
              <Table.Td>{t('versions.seriesRow')}</Table.Td>
              {SPLITS.map((name) => (
                <Table.Td key={name} data-testid={`version-series-${name}-${version.id}`}>
                  {formatNumber(timeSplit.series[name] ?? 0)}
                </Table.Td>
              ))}
              <Table.Td />
            </Table.Tr>
          )}
        </Table.Tbody>
      </Table>
      {timeSplit && timeSplit.train_only_series > 0 && (
        <Text size="xs" c="orange" data-testid={`version-train-only-${version.id}`}>
          {t('versions.trainOnlySeries', { count: timeSplit.train_only_series, formatted: formatNumber(timeSplit.train_only_series), needed: 2 * timeSplit.horizon + 2 })}
        </Text>
      )}
    </Stack>
  );
}

function VersionCounts({ version }: { version: DatasetVersion }) {
  const { t } = useTranslation('datasets');
  return (
    <Table fz="sm" verticalSpacing={4} data-testid={`version-counts-${version.id}`}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t('versions.class')}</Table.Th>
          {SPLITS.map((split) => (
            <Table.Th key={split}>{t(`versions.splits.${split}`)}</Table.Th>
          ))}
          <Table.Th>{t('versions.total')}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {version.classes.map((name) => {
          const per = SPLITS.map((split) => version.counts[split]?.[name] ?? 0);
          return (
            <Table.Tr key={name}>
              <Table.Td>{name}</Table.Td>
              {per.map((count, index) => (
                <Table.Td key={SPLITS[index]}>{count}</Table.Td>
              ))}
              <Table.Td>{per.reduce((a, b) => a + b, 0)}</Table.Td>
            </Table.Tr>
          );
        })}
        <Table.Tr fw={600}>
          <Table.Td>{t('versions.all')}</Table.Td>
          {SPLITS.map((split) => (
            <Table.Td key={split}>{version.totals[split] ?? 0}</Table.Td>
          ))}
          <Table.Td>{version.sample_count}</Table.Td>
        </Table.Tr>
      </Table.Tbody>
    </Table>
  );
}

export function VersionsPanel({ datasetId, canEdit }: { datasetId: number; canEdit: boolean }) {
  const { t } = useTranslation('datasets');
  const { data: versions, isPending, isError, error } = useVersions(datasetId);
  // The form depends on the task (a horizon for forecasting, ratios otherwise): wait for it.
  const { data: dataset, isPending: datasetPending } = useDataset(datasetId);
  const forecasting = isForecastingDataset(dataset?.task_type);
  return (
    <Stack data-testid="versions-panel">
      {datasetPending ? (
        <Skeleton h={120} />
      ) : forecasting ? (
        <CreateForecastVersionForm datasetId={datasetId} disabled={!canEdit} />
      ) : (
        <CreateVersionForm datasetId={datasetId} disabled={!canEdit} />
      )}
      {isPending && <Skeleton h={120} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {versions && versions.length === 0 && (
        <Text c="dimmed" ta="center" data-testid="versions-empty">
          {t('versions.empty')}
        </Text>
      )}
      {versions && versions.length > 0 && (
        <Accordion variant="separated" multiple defaultValue={[String(versions[0].id)]} data-testid="versions-list">
          {versions.map((version) => (
            <Accordion.Item key={version.id} value={String(version.id)} data-testid={`version-row-${version.id}`}>
              <Accordion.Control>
                <Group gap="sm">
                  <Text fw={700} data-testid={`version-name-${version.id}`}>
                    {version.name}
                  </Text>
                  {forecasting ? (
                    <>
                      <Badge variant="light" data-testid={`version-horizon-${version.id}`}>
                        {t('versions.horizonBadge', { horizon: version.horizon ?? '—' })}
                      </Badge>
                      <Badge variant="light" color="gray">
                        {t('versions.observationCount', { count: version.sample_count, formatted: formatNumber(version.sample_count) })}
                      </Badge>
                    </>
                  ) : (
                    <>
                      <Badge variant="light">{t('versions.samples', { count: version.sample_count, formatted: formatNumber(version.sample_count) })}</Badge>
                      <Badge variant="light" color="gray">
                        {t('versions.classes', { count: version.classes.length })}
                      </Badge>
                    </>
                  )}
                  {version.reviewed_only && (
                    <Badge variant="light" color="teal" data-testid={`version-reviewed-only-${version.id}`}>
                      {t('versions.reviewedOnlyBadge')}
                    </Badge>
                  )}
                  <Text size="xs" c="dimmed">
                    {forecasting ? t('versions.summaryForecast', { created: formatDateTime(version.created_at) }) : t('versions.summary', {
                      train: version.train_ratio,
                      val: version.val_ratio,
                      test: version.test_ratio,
                      seed: version.seed,
                      created: formatDateTime(version.created_at),
                    })}
                    {version.unlabeled_excluded ? t('versions.unlabeledLeftOut', { count: version.unlabeled_excluded, formatted: formatNumber(version.unlabeled_excluded) }) : ''}
                  </Text>
                </Group>
              </Accordion.Control>
              <Accordion.Panel>
                {version.note && (
                  <Text size="sm" mb="xs">
                    {version.note}
                  </Text>
                )}
                {forecasting ? <ForecastVersionCounts version={version} /> : <VersionCounts version={version} />}
              </Accordion.Panel>
            </Accordion.Item>
          ))}
        </Accordion>
      )}
    </Stack>
  );
}
