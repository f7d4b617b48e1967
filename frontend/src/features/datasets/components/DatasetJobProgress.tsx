import { Alert, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '@/lib/numbers';
import type { DatasetJob } from '../api/versions';
import { isJobFinished } from '../api/versions';
import { useDatasetJob } from '../hooks/useDatasetJob';

/**
 * A running datasets.version / datasets.export job: a live progress bar (samples done of the total,
 * time left), then its outcome; `onFinished` once it ends (refresh the versions, offer the download).
 */
export function DatasetJobProgress({
  datasetId,
  jobId,
  title,
  onFinished,
  children,
}: {
  datasetId: number;
  jobId: number;
  title: string;
  onFinished?: (job: DatasetJob) => void;
  children?: (job: DatasetJob) => React.ReactNode;
}) {
  const { t } = useTranslation('datasets');
  const { data: job } = useDatasetJob(datasetId, jobId);
  const reported = useRef(false);
  const finished = job !== undefined && isJobFinished(job);
  useEffect(() => {
    if (finished && job && !reported.current) {
      reported.current = true;
      onFinished?.(job);
    }
  }, [finished, job, onFinished]);
  const progress = (job?.progress ?? {}) as { fraction?: number; processed?: number; total?: number; eta_s?: number };
  const percent = Math.round(100 * (job?.status === 'succeeded' ? 1 : (progress.fraction ?? 0)));
  return (
    <Paper withBorder p="sm" data-testid="dataset-job" data-status={job?.status ?? 'queued'}>
      <Stack gap={6}>
        <Group justify="space-between">
          <Text fw={500}>{title}</Text>
          <Text size="sm" c="dimmed" data-testid="dataset-job-status">
            {t(`datasetJob.status.${job?.status ?? 'queued'}`)}
          </Text>
        </Group>
        <Progress value={percent} striped={!finished} animated={!finished} aria-label={t('datasetJob.aria', { percent })} data-testid="dataset-job-progress" data-value={percent} />
        {progress.total ? (
          <Text size="sm" c="dimmed" data-testid="dataset-job-counts">
            {t('datasetJob.counts', { done: formatNumber(progress.processed ?? 0), total: formatNumber(progress.total) })}
            {!finished && progress.eta_s !== undefined ? ` · ${t('datasetJob.eta', { seconds: Math.ceil(progress.eta_s) })}` : ''}
          </Text>
        ) : null}
        {job && (job.status === 'failed' || job.status === 'cancelled') ? (
          <Alert color="red" data-testid="dataset-job-error">
            {job.error || t(`datasetJob.status.${job.status}`)}
          </Alert>
        ) : null}
        {job && job.status === 'succeeded' && children ? children(job) : null}
      </Stack>
    </Paper>
  );
}
