import { Alert, Anchor, Badge, Button, Group, List, Paper, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { QueryState } from '@/components/QueryState';
import { WithReason } from '@/components/WithReason';
import { formatDateTime, formatSeconds } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { statusColor } from '@/lib/statusColors';
import { formatBytes } from '../../api/packages';
import { batchDownloadUrl, batchProgress, isLive, type BatchFilters, type BatchPrediction } from './api';
import { useBatchPredictions, useCancelBatchPrediction, useDeleteBatchPrediction } from './useBatch';

const METRICS = ['accuracy', 'macro_f1', 'mae', 'rmse', 'r2', 'map50'] as const;
const isMetric = (name: string): name is (typeof METRICS)[number] => (METRICS as readonly string[]).includes(name);

function Input({ batch }: { batch: BatchPrediction }) {
  const { t } = useTranslation('batch');
  const { source } = batch;
  if (source.kind === 'upload') {
    return (
      <Text size="sm">
        {t('input.upload', { name: source.upload_name, size: formatBytes(source.upload_size) })}
      </Text>
    );
  }
  if (source.kind === 'dataset') {
    return (
      <Text size="sm">
        {t('input.dataset', { name: source.dataset_name ?? `#${source.dataset}` })}
      </Text>
    );
  }
  return (
    <Text size="sm">
      {t('input.version', {
        name: source.dataset_version_name ?? `#${source.dataset_version}`,
        split: t(`splits.${(source.split || 'all') as 'all' | 'train' | 'val' | 'test'}`),
      })}
    </Text>
  );
}

function Status({ batch }: { batch: BatchPrediction }) {
  const { t } = useTranslation('batch');
  const live = isLive(batch.status);
  const { percent, eta } = batchProgress(batch);
  return (
    <Stack gap={4} miw={160}>
      <Badge
        color={statusColor('job', batch.status)}
        variant={batch.status === 'running' ? 'filled' : 'light'}
        data-testid={`batch-status-${batch.id}`}
        data-status={batch.status}
      >
        {t(`status.${batch.status}`)}
      </Badge>
      {live && (
        <>
          <Progress
            value={percent ?? 100}
            striped
            animated
            data-testid={`batch-progress-${batch.id}`}
            data-value={percent ?? ''}
            aria-label={t('runs.progress', { value: percent ?? 0 })}
          />
          <Text size="xs" c="dimmed">
            {batch.progress?.total
              ? t('runs.done', { done: batch.progress.done ?? 0, total: batch.progress.total })
              : t('runs.starting')}
            {eta !== null && ` · ${t('runs.eta', { eta: formatSeconds(eta) })}`}
          </Text>
        </>
      )}
    </Stack>
  );
}

function Outcome({ batch }: { batch: BatchPrediction }) {
  const { t } = useTranslation('batch');
  const [showErrors, setShowErrors] = useState(false);
  const { summary } = batch;
  if (batch.error) {
    return (
      <Text size="sm" c="red" data-testid={`batch-error-${batch.id}`}>
        {batch.error}
      </Text>
    );
  }
  if (!summary) return <Text c="dimmed">—</Text>;
  return (
    <Stack gap={2}>
      <Text size="sm" data-testid={`batch-rows-${batch.id}`}>
        {t('runs.rows', { count: summary.rows, predicted: summary.predicted, speed: summary.rows_per_s.toFixed(1) })}
      </Text>
      {summary.metrics && (
        <Group gap={6} data-testid={`batch-metrics-${batch.id}`}>
          {Object.entries(summary.metrics)
            .filter(([name]) => name !== 'samples') // the count the metrics are over: the rows above
            .map(([name, value]) => (
            <Badge key={name} variant="light" color="teal" data-metric={name} data-value={value}>
              {t('runs.metric', { name: isMetric(name) ? t(`metrics.${name}`) : name, value: value.toFixed(4) })}
            </Badge>
          ))}
        </Group>
      )}
      {summary.errors > 0 && (
        <>
          <Anchor component="button" type="button" size="sm" c="orange" onClick={() => setShowErrors((on) => !on)} data-testid={`batch-errors-${batch.id}`}>
            {t('runs.errors', { count: summary.errors })}
          </Anchor>
          {showErrors && (
            <List size="xs" data-testid={`batch-error-examples-${batch.id}`}>
              {summary.error_examples.map((row, index) => (
                <List.Item key={`${row.name}-${index}`}>
                  <Text span size="xs" ff="monospace">
                    {row.name}
                  </Text>
                  {': '}
                  {row.error}
                </List.Item>
              ))}
            </List>
          )}
        </>
      )}
    </Stack>
  );
}

function Params({ batch }: { batch: BatchPrediction }) {
  const { t } = useTranslation('batch');
  const parts = [
    batch.params.top_k !== undefined ? t('params.topK', { k: batch.params.top_k }) : null,
    batch.params.score_threshold !== undefined ? t('params.threshold', { value: batch.params.score_threshold }) : null,
    batch.params.max_detections !== undefined ? t('params.maxDetections', { value: batch.params.max_detections }) : null,
  ].filter((part): part is string => part !== null);
  return parts.length ? <Text size="xs" c="dimmed">{parts.join(' · ')}</Text> : null;
}

/**
 * The batch predictions of a project, a model version or a deployment (filters), newest first:
 * status with a live progress bar and ETA, input, counts and metrics, errors with examples, a
 * download per result format, cancel and delete.
 */
export function BatchRunsPanel({
  filters,
  canEdit = true,
  showVersion = true,
  title,
  actions,
}: {
  filters: BatchFilters;
  canEdit?: boolean;
  showVersion?: boolean;
  title?: string;
  actions?: ReactNode;
}) {
  const { t } = useTranslation('batch');
  const { data, isPending, error } = useBatchPredictions(filters);
  const cancel = useCancelBatchPrediction();
  const remove = useDeleteBatchPrediction();
  const runs = data?.results ?? [];
  const viewerReason = canEdit ? null : t('runs.viewer');
  return (
    <Paper withBorder p="md" data-testid="batch-runs">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={5}>{title ?? t('runs.title')}</Title>
          {actions}
        </Group>
        {!data ? (
          <QueryState isPending={isPending} error={error} what={t('runs.title')} />
        ) : runs.length === 0 ? (
          <Text c="dimmed" size="sm" data-testid="batch-runs-empty">
            {t('runs.empty')}
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={800}>
            <Table verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('runs.run')}</Table.Th>
                  {showVersion && <Table.Th>{t('runs.modelVersion')}</Table.Th>}
                  <Table.Th>{t('runs.input')}</Table.Th>
                  <Table.Th>{t('runs.status')}</Table.Th>
                  <Table.Th>{t('runs.outcome')}</Table.Th>
                  <Table.Th>{t('runs.results')}</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {runs.map((batch) => (
                  <Table.Tr key={batch.id} data-testid={`batch-row-${batch.id}`} data-status={batch.status}>
                    <Table.Td>
                      <Text size="sm">#{batch.id}</Text>
                      <Text size="xs" c="dimmed">
                        {formatDateTime(batch.created_at)}
                        {batch.created_by ? ` · ${batch.created_by}` : ''}
                      </Text>
                      {batch.deployment !== null && (
                        <Anchor component={Link} to={`/deployments/${batch.deployment}/batch`} size="xs">
                          {t('runs.fromDeployment', { id: batch.deployment })}
                        </Anchor>
                      )}
                    </Table.Td>
                    {showVersion && (
                      <Table.Td>
                        <Anchor component={Link} to={`/model-versions/${batch.model_version}`} size="sm">
                          {batch.model_version_name}
                        </Anchor>
                      </Table.Td>
                    )}
                    <Table.Td>
                      <Input batch={batch} />
                      <Params batch={batch} />
                    </Table.Td>
                    <Table.Td>
                      <Status batch={batch} />
                    </Table.Td>
                    <Table.Td>
                      <Outcome batch={batch} />
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4}>
                        {batch.files.map((file) => (
                          <Button
                            key={file.format}
                            component="a"
                            href={batchDownloadUrl(batch, file.format)}
                            download
                            size="compact-xs"
                            variant="light"
                            title={t('runs.download', { format: t(`formats.${file.format}`), size: formatBytes(file.size_bytes) })}
                            data-testid={`batch-download-${batch.id}-${file.format}`}
                          >
                            {t(`formats.${file.format}`)}
                          </Button>
                        ))}
                      </Group>
                    </Table.Td>
                    <Table.Td>
                      <WithReason reason={viewerReason}>
                        {isLive(batch.status) ? (
                          <Button
                            size="compact-xs"
                            variant="subtle"
                            color="orange"
                            disabled={!canEdit}
                            loading={cancel.isPending && cancel.variables === batch.id}
                            onClick={() => cancel.mutate(batch.id)}
                            data-testid={`batch-cancel-${batch.id}`}
                          >
                            {t('runs.cancel')}
                          </Button>
                        ) : (
                          <Button
                            size="compact-xs"
                            variant="subtle"
                            color="red"
                            disabled={!canEdit}
                            loading={remove.isPending && remove.variables === batch.id}
                            onClick={() => remove.mutate(batch.id)}
                            data-testid={`batch-delete-${batch.id}`}
                          >
                            {t('runs.delete')}
                          </Button>
                        )}
                      </WithReason>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {(cancel.isError || remove.isError) && (
          <Alert color="red" variant="light">
            {errorMessage(cancel.error ?? remove.error)}
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}
