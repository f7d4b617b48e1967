import '@mantine/charts/styles.css';
import { Alert, Badge, Paper, SimpleGrid, Skeleton, Stack, Table, Title } from '@mantine/core';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Stat } from '@/components/Stat';
import { errorMessage } from '@/lib/notifications';
import { formatNumber } from '@/lib/numbers';
import { isForecastingDataset, type DatasetStatistics } from '../api/datasets';
import { useDataset, useStatistics } from '../hooks/useDatasets';
import { DetectionStatistics } from './detection/DetectionStatistics';
import { labelColor } from './labelKeys';
import { ProfilePanel } from './ProfilePanel';
import { SeriesProfilePanel } from './SeriesProfilePanel';
import { CategoryBars, ChartCard, ColumnBars } from './ChartCard';

/** Chart rows: one per label, in the labels' order (the unlabeled samples are a figure of their own,
 * so a large unlabeled share does not squash the class bars). */
function classRows(statistics: DatasetStatistics): { name: string; count: number; color: string }[] {
  return statistics.per_label.map((row, index) => ({ name: row.name, count: row.count, color: labelColor(row, index) }));
}

/** "≤ 32 px", ..., "> 4096 px" for the longer-side buckets. */
function sizeRows(statistics: DatasetStatistics, t: TFunction<'datasets'>): { bucket: string; count: number }[] {
  const bounded = statistics.size_buckets.filter((bucket) => bucket.max_side !== null).map((bucket) => bucket.max_side as number);
  const largest = bounded.length ? Math.max(...bounded) : 0;
  return statistics.size_buckets.map((bucket) => ({
    bucket: bucket.max_side === null ? t('statistics.sizeAbove', { px: largest }) : t('statistics.sizeUpTo', { px: bucket.max_side }),
    count: bucket.count,
  }));
}

function range(r: DatasetStatistics['width'], t: TFunction<'datasets'>): string {
  if (r.min === null || r.max === null) return '—';
  return r.min === r.max ? `${r.min}` : t('statistics.range', { min: r.min, max: r.max, mean: formatNumber(Math.round(r.mean ?? 0)) });
}

/** A dataset's statistics as its task needs them: images and boxes, a table's columns, or time series. */
export function StatisticsPanel({ datasetId, canEdit = false }: { datasetId: number; canEdit?: boolean }) {
  const { data: dataset } = useDataset(datasetId);
  if (dataset && isForecastingDataset(dataset.task_type)) return <SeriesProfilePanel dataset={dataset} canEdit={canEdit} />;
  const tabular = dataset?.task_type === 'tabular_classification' || dataset?.task_type === 'tabular_regression';
  return tabular ? <ProfilePanel datasetId={datasetId} /> : <ImageStatisticsPanel datasetId={datasetId} />;
}

function ImageStatisticsPanel({ datasetId }: { datasetId: number }) {
  const { t } = useTranslation('datasets');
  const { data: statistics, isPending, isError, error } = useStatistics(datasetId);
  if (isPending) return <Skeleton h={240} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  const classes = classRows(statistics);
  const sizes = sizeRows(statistics, t);
  const detection = statistics.detection ?? null;
  return (
    <Stack data-testid="statistics-panel">
      {detection && <DetectionStatistics detection={detection} />}
      <SimpleGrid cols={{ base: 2, sm: 5 }}>
        <Stat label={t('statistics.samples')} value={statistics.total} testId="stat-total" />
        <Stat label={t('statistics.labeled')} value={statistics.labeled} testId="stat-labeled" />
        <Stat label={t('statistics.unlabeled')} value={statistics.unlabeled} testId="stat-unlabeled" />
        <Stat label={t('statistics.width')} value={range(statistics.width, t)} testId="stat-width" />
        <Stat label={t('statistics.height')} value={range(statistics.height, t)} testId="stat-height" />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        {/* A detection dataset charts boxes per class above instead. */}
        {!detection && (
          <ChartCard
            title={t('statistics.perClass')}
            testId="class-counts-chart"
            points={classes.length}
            empty={classes.length === 0}
            emptyText={statistics.total === 0 ? t('statistics.noSamples') : t('statistics.noLabels')}
            badge={
              statistics.unlabeled > 0 && (
                <Badge variant="light" color="gray" data-testid="unlabeled-badge">
                  {t('statistics.unlabeledApart', { count: statistics.unlabeled, formatted: formatNumber(statistics.unlabeled) })}
                </Badge>
              )
            }
          >
            <CategoryBars rows={classes} series={t('statistics.samplesSeries')} color="blue.6" testId="class-counts-bars" />
          </ChartCard>
        )}
        <ChartCard title={t('statistics.sizeTitle')} testId="size-chart" points={sizes.length} empty={sizes.every((row) => row.count === 0)} emptyText={t('statistics.noSamples')}>
          <ColumnBars rows={sizes} series={t('statistics.imagesSeries')} color="teal.6" />
        </ChartCard>
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Paper withBorder p="md">
          <Title order={5} mb="sm">
            {t('statistics.commonSizes')}
          </Title>
          <Table fz="sm" verticalSpacing={4} data-testid="common-sizes">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('statistics.widthByHeight')}</Table.Th>
                <Table.Th>{t('statistics.images')}</Table.Th>
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
            {t('statistics.formats')}
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
