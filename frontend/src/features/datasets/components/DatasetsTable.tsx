import { Alert, Anchor, Badge, Paper, Progress, Skeleton, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { formatNumber } from '@/lib/numbers';
import { isForecastingDataset } from '../api/datasets';
import { useDatasets } from '../hooks/useDatasets';

export function DatasetsTable({ projectId }: { projectId: number }) {
  const { t } = useTranslation('datasets');
  const { data, isPending, isError, error } = useDatasets(projectId);
  if (isPending) return <Skeleton h={120} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  if (data.results.length === 0) {
    return (
      <Paper withBorder p="xl" ta="center" data-testid="datasets-empty">
        <Text fw={500}>{t('table.emptyTitle')}</Text>
        <Text c="dimmed" size="sm">
          {t('table.emptyHint')}
        </Text>
      </Paper>
    );
  }
  return (
    <Paper withBorder>
      <Table highlightOnHover verticalSpacing="sm" data-testid="datasets-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('table.name')}</Table.Th>
            <Table.Th>{t('table.task')}</Table.Th>
            <Table.Th>{t('table.samples')}</Table.Th>
            <Table.Th w={200}>{t('table.labeled')}</Table.Th>
            <Table.Th>{t('table.labels')}</Table.Th>
            <Table.Th>{t('table.created')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data.results.map((dataset) => {
            const percent = dataset.sample_count ? (100 * dataset.labeled_count) / dataset.sample_count : 0;
            return (
              <Table.Tr key={dataset.id} data-testid={`dataset-row-${dataset.id}`}>
                <Table.Td>
                  <Anchor component={Link} to={`/datasets/${dataset.id}`} fw={500} data-testid={`dataset-link-${dataset.id}`}>
                    {dataset.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Badge variant="light">{t(`taskTypes.${dataset.task_type}`)}</Badge>
                </Table.Td>
                <Table.Td>{formatNumber(dataset.sample_count)}</Table.Td>
                {isForecastingDataset(dataset.task_type) ? (
                  // Observations of time series are not labeled: no labeling progress or labels.
                  <>
                    <Table.Td c="dimmed">—</Table.Td>
                    <Table.Td c="dimmed">—</Table.Td>
                  </>
                ) : (
                  <>
                    <Table.Td>
                      <Progress value={percent} size="sm" aria-label={t('table.labeledAria', { labeled: formatNumber(dataset.labeled_count), total: formatNumber(dataset.sample_count) })} />
                      <Text size="xs" c="dimmed">
                        {formatNumber(dataset.labeled_count)} / {formatNumber(dataset.sample_count)}
                      </Text>
                    </Table.Td>
                    <Table.Td>{dataset.label_count}</Table.Td>
                  </>
                )}
                <Table.Td>
                  <Text size="sm">{formatDateTime(dataset.created_at)}</Text>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
