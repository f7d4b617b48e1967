import { Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '@/lib/numbers';
import { exportUrl, isForecastingDataset, type Dataset } from '../api/datasets';

export function DatasetHeader({ dataset }: { dataset: Dataset }) {
  const { t } = useTranslation('datasets');
  return (
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
      <Button component="a" href={exportUrl(dataset.id)} download variant="default" data-testid="dataset-export">
        {t('header.export')}
      </Button>
    </Group>
  );
}
