import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Alert, Paper, SimpleGrid, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { Stat } from '@/components/Stat';
import { errorMessage } from '@/lib/notifications';
import type { DatasetStatistics } from '../api/datasets';
import { useDataset, useStatistics } from '../hooks/useDatasets';
import { ProfilePanel } from './ProfilePanel';

/** Chart rows: one per label plus the unlabeled samples. */
function classRows(statistics: DatasetStatistics): { name: string; count: number; color: string }[] {
  const rows = statistics.per_label.map((row) => ({ name: row.name, count: row.count, color: row.color || 'blue.6' }));
  if (statistics.unlabeled > 0) rows.push({ name: '(unlabeled)', count: statistics.unlabeled, color: 'gray.5' });
  return rows;
}

/** "≤ 32 px", ..., "> 4096 px" for the longer-side buckets. */
function sizeRows(statistics: DatasetStatistics): { bucket: string; count: number }[] {
  const bounded = statistics.size_buckets.filter((bucket) => bucket.max_side !== null).map((bucket) => bucket.max_side as number);
  const largest = bounded.length ? Math.max(...bounded) : 0;
  return statistics.size_buckets.map((bucket) => ({
    bucket: bucket.max_side === null ? `> ${largest} px` : `≤ ${bucket.max_side} px`,
    count: bucket.count,
  }));
}

function range(r: DatasetStatistics['width']): string {
  if (r.min === null || r.max === null) return '—';
  return r.min === r.max ? `${r.min}` : `${r.min}–${r.max} (mean ${Math.round(r.mean ?? 0)})`;
}

export function StatisticsPanel({ datasetId }: { datasetId: number }) {
  const { data: dataset } = useDataset(datasetId);
  const tabular = dataset?.task_type === 'tabular_classification' || dataset?.task_type === 'tabular_regression';
  return tabular ? <ProfilePanel datasetId={datasetId} /> : <ImageStatisticsPanel datasetId={datasetId} />;
}

function ImageStatisticsPanel({ datasetId }: { datasetId: number }) {
  const { data: statistics, isPending, isError, error } = useStatistics(datasetId);
  if (isPending) return <Skeleton h={240} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  const classes = classRows(statistics);
  const sizes = sizeRows(statistics);
  return (
    <Stack data-testid="statistics-panel">
      <SimpleGrid cols={{ base: 2, sm: 5 }}>
        <Stat label="Samples" value={statistics.total} testId="stat-total" />
        <Stat label="Labeled" value={statistics.labeled} testId="stat-labeled" />
        <Stat label="Unlabeled" value={statistics.unlabeled} testId="stat-unlabeled" />
        <Stat label="Width px" value={range(statistics.width)} testId="stat-width" />
        <Stat label="Height px" value={range(statistics.height)} testId="stat-height" />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Paper withBorder p="md" data-testid="class-counts-chart" data-points={classes.length}>
          <Title order={5} mb="sm">
            Samples per class
          </Title>
          {classes.length === 0 ? (
            <Text c="dimmed" size="sm">
              No samples yet.
            </Text>
          ) : (
            <BarChart
              h={260}
              data={classes}
              dataKey="name"
              series={[{ name: 'count', label: 'Samples', color: 'blue.6' }]}
              getBarColor={(_, entry) => (entry && typeof entry.color === 'string' ? entry.color : 'blue.6')}
              tickLine="y"
            />
          )}
        </Paper>
        <Paper withBorder p="md" data-testid="size-chart" data-points={sizes.length}>
          <Title order={5} mb="sm">
            Image size (longer side)
          </Title>
          {sizes.every((row) => row.count === 0) ? (
            <Text c="dimmed" size="sm">
              No samples yet.
            </Text>
          ) : (
            <BarChart h={260} data={sizes} dataKey="bucket" series={[{ name: 'count', label: 'Images', color: 'teal.6' }]} tickLine="y" />
          )}
        </Paper>
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Paper withBorder p="md">
          <Title order={5} mb="sm">
            Most common sizes
          </Title>
          <Table fz="sm" verticalSpacing={4} data-testid="common-sizes">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Width × height</Table.Th>
                <Table.Th>Images</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {statistics.common_sizes.slice(0, 10).map((row) => (
                <Table.Tr key={`${row.width}x${row.height}`}>
                  <Table.Td>
                    {row.width} × {row.height}
                  </Table.Td>
                  <Table.Td>{row.count}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
        <Paper withBorder p="md">
          <Title order={5} mb="sm">
            Formats
          </Title>
          <Table fz="sm" verticalSpacing={4} data-testid="formats">
            <Table.Tbody>
              {statistics.formats.map((row) => (
                <Table.Tr key={row.format}>
                  <Table.Td>{row.format}</Table.Td>
                  <Table.Td>{row.count}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
      </SimpleGrid>
    </Stack>
  );
}
