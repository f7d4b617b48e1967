import { Badge, Button, Group, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '@/lib/numbers';
import { exportUrl, isForecastingDataset, type Dataset } from '../api/datasets';
import { exportJobUrl, startExportJob } from '../api/versions';
import { DatasetJobProgress } from './DatasetJobProgress';

export function DatasetHeader({ dataset }: { dataset: Dataset }) {
  const { t } = useTranslation('datasets');
  const [exportJob, setExportJob] = useState<number | null>(null);
  const start = useMutation({ mutationFn: () => startExportJob(dataset.id), onSuccess: (job) => setExportJob(job.id) });
  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Group gap="sm">
            <Title order={2} data-testid="dataset-title">
              {dataset.name}
            </Title>
            <Badge variant="light">{t(`taskTypes.${dataset.task_type}`)}</Badge>
          </Group>
          {dataset.description && <Text c="dimmed">{dataset.description}</Text>}
          <Text size="sm" c="dimmed" data-testid="dataset-counts">
            {isForecastingDataset(dataset.task_type)
              ? t('header.observations', { count: dataset.sample_count, formatted: formatNumber(dataset.sample_count) })
              : t('header.counts', {
                  samples: formatNumber(dataset.sample_count),
                  labeled: formatNumber(dataset.labeled_count),
                  labels: formatNumber(dataset.label_count),
                })}
          </Text>
        </Stack>
        <Group gap="xs">
          <Button component="a" href={exportUrl(dataset.id)} download variant="default" data-testid="dataset-export">
            {t('header.export')}
          </Button>
          <Tooltip label={t('datasetJob.exportAsJobHint')} multiline w={280}>
            <Button variant="default" onClick={() => start.mutate()} loading={start.isPending} data-testid="dataset-export-job">
              {t('datasetJob.exportAsJob')}
            </Button>
          </Tooltip>
        </Group>
      </Group>
      {exportJob !== null && (
        <DatasetJobProgress key={exportJob} datasetId={dataset.id} jobId={exportJob} title={t('datasetJob.exportTitle')}>
          {(job) => (
            <Button component="a" href={exportJobUrl(dataset.id, job.id)} download variant="light" data-testid="dataset-export-job-download">
              {t('datasetJob.download')}
            </Button>
          )}
        </DatasetJobProgress>
      )}
    </Stack>
  );
}
