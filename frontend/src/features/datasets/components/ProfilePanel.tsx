import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Alert, Badge, Group, Paper, Progress, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { translateDynamic } from '@/i18n';
import { errorMessage } from '@/lib/notifications';
import { formatNumber, formatPercent } from '@/lib/numbers';
import { getProfile } from '../api/datasets';
import { datasetKeys } from '../api/keys';

type Histogram = { edges: number[]; counts: number[] };
type ColumnProfile = {
  name: string;
  type: string;
  count: number;
  missing: number;
  missing_share: number;
  unique: number;
  min?: number | string;
  max?: number | string;
  mean?: number;
  histogram?: Histogram;
  top?: { value: string; count: number }[];
  mean_length?: number;
};

function short(value: number): string {
  return Math.abs(value) >= 1000 || (Math.abs(value) < 0.01 && value !== 0) ? value.toExponential(1) : value.toFixed(2);
}

/** Histogram bins as chart rows ("1.20–1.45"). */
function histogramRows(histogram: Histogram): { bin: string; count: number }[] {
  return histogram.counts.map((count, i) => ({ bin: `${short(histogram.edges[i])}–${short(histogram.edges[i + 1])}`, count }));
}

function ColumnCard({ column }: { column: ColumnProfile }) {
  const { t } = useTranslation('datasets');
  const rows = column.histogram
    ? histogramRows(column.histogram)
    : (column.top ?? []).slice(0, 12).map((entry) => ({ bin: entry.value, count: entry.count }));
  return (
    <Paper withBorder p="sm" data-testid={`profile-column-${column.name}`}>
      <Group justify="space-between" mb={4}>
        <Text fw={600} size="sm" truncate>
          {column.name}
        </Text>
        <Badge size="sm" variant="light">
          {translateDynamic(`datasets:profile.types.${column.type}`, column.type)}
        </Badge>
      </Group>
      <Text size="xs" c="dimmed">
        {t('profile.columnSummary', { unique: formatNumber(column.unique), missing: formatPercent(column.missing_share) })}
        {typeof column.mean === 'number' ? t('profile.mean', { value: short(column.mean) }) : ''}
        {typeof column.mean_length === 'number' ? t('profile.meanLength', { value: formatNumber(Math.round(column.mean_length)) }) : ''}
      </Text>
      <Progress value={100 * column.missing_share} color="orange" size="xs" my={4} aria-label={t('profile.missingShare')} />
      {rows.length > 0 && (
        <BarChart h={120} data={rows} dataKey="bin" series={[{ name: 'count', label: t('profile.rowsSeries'), color: 'blue.6' }]} valueFormatter={(value) => formatNumber(value)} withXAxis={false} />
      )}
    </Paper>
  );
}

/** Tabular datasets: the target's balance and, per column, its type, missing share and distribution. */
export function ProfilePanel({ datasetId }: { datasetId: number }) {
  const { t } = useTranslation('datasets');
  const query = useQuery({ queryKey: datasetKeys.profile(datasetId), queryFn: () => getProfile(datasetId) });
  if (query.isPending) return <Skeleton h={240} />;
  if (query.isError) return <Alert color="red">{errorMessage(query.error)}</Alert>;
  const profile = query.data as { rows?: number; columns?: ColumnProfile[]; target?: Record<string, unknown> };
  if (!profile.columns) return <Text c="dimmed">{t('profile.empty')}</Text>;
  const target = (profile.target ?? {}) as {
    name?: string;
    type?: string;
    missing?: number;
    classes?: { value: string; count: number }[];
    histogram?: Histogram;
  };
  const targetRows = target.classes
    ? target.classes.map((entry) => ({ bin: entry.value, count: entry.count }))
    : target.histogram
      ? histogramRows(target.histogram)
      : [];
  return (
    <Stack data-testid="profile-panel">
      <Paper withBorder p="md" data-testid="profile-target" data-points={targetRows.length}>
        <Title order={5} mb="xs">
          {t(target.type === 'classes' ? 'profile.targetClasses' : 'profile.targetDistribution', {
            name: target.name ?? '',
            count: profile.rows ?? 0,
            rows: formatNumber(profile.rows ?? 0),
          })}
          {target.missing ? t('profile.withoutTarget', { count: target.missing, formatted: formatNumber(target.missing) }) : ''}
        </Title>
        <BarChart
          h={200}
          data={targetRows}
          dataKey="bin"
          series={[{ name: 'count', label: t('profile.rowsSeries'), color: 'teal.6' }]}
          valueFormatter={(value) => formatNumber(value)}
          xAxisProps={{ interval: 0 }}
        />
      </Paper>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {profile.columns.map((column) => (
          <ColumnCard key={column.name} column={column} />
        ))}
      </SimpleGrid>
    </Stack>
  );
}
