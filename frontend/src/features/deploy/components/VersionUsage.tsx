import { BarChart, LineChart } from '@mantine/charts';
import { Badge, Paper, SimpleGrid, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '@/lib/numbers';
import type { UsageWindow } from '../api/keys';
import { histogramRows, VERSION_COLORS, versionSeriesRows, type VersionUsage as VersionUsageRow } from '../api/traffic';
import { errorRate, formatMs } from '../api/usage';

/**
 * Usage split by the model version that answered: a table of calls, errors and latency, calls and
 * errors over time with one series per version, and each version's score (or value) distribution.
 */
export function VersionUsage({
  versions,
  window,
  bucketSeconds,
  regression = false,
}: {
  versions: VersionUsageRow[];
  window: UsageWindow;
  bucketSeconds: number;
  regression?: boolean;
}) {
  const { t } = useTranslation('deploy');
  if (versions.length === 0) return null;
  const series = versions.map((version, index) => ({
    name: `v${version.model_version}`,
    label: version.model_version_name,
    color: VERSION_COLORS[index % VERSION_COLORS.length],
  }));
  return (
    <>
      <Paper withBorder p="md" data-testid="usage-by-version">
        <Title order={6} mb="sm">
          {t('usage.byVersion.title')}
        </Title>
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('usage.byVersion.version')}</Table.Th>
              <Table.Th>{t('usage.calls')}</Table.Th>
              <Table.Th>{t('usage.errors')}</Table.Th>
              <Table.Th>{t('usage.errorRate')}</Table.Th>
              <Table.Th>p50</Table.Th>
              <Table.Th>p95</Table.Th>
              <Table.Th>p99</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {versions.map((version, index) => (
              <Table.Tr
                key={version.model_version}
                data-testid={`usage-version-${version.model_version}`}
                data-calls={version.calls}
                data-errors={version.errors}
                data-role={version.role}
              >
                <Table.Td>
                  <Badge color={VERSION_COLORS[index % VERSION_COLORS.length]} variant="light" mr="xs">
                    {t(`traffic.roles.${version.role}`)}
                  </Badge>
                  {version.model_version_name}
                </Table.Td>
                <Table.Td>{formatNumber(version.calls)}</Table.Td>
                <Table.Td>{formatNumber(version.errors)}</Table.Td>
                <Table.Td>{errorRate(version)}</Table.Td>
                <Table.Td>{formatMs(version.latency_ms.p50)}</Table.Td>
                <Table.Td>{formatMs(version.latency_ms.p95)}</Table.Td>
                <Table.Td>{formatMs(version.latency_ms.p99)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Paper withBorder p="md" data-testid="usage-version-calls-chart">
          <Title order={6} mb="sm">
            {t('usage.byVersion.callsChart')}
          </Title>
          <LineChart h={220} data={versionSeriesRows(versions, 'calls', window, bucketSeconds)} dataKey="t" series={series} withLegend withDots={false} />
        </Paper>
        <Paper withBorder p="md" data-testid="usage-version-errors-chart">
          <Title order={6} mb="sm">
            {t('usage.byVersion.errorsChart')}
          </Title>
          <LineChart h={220} data={versionSeriesRows(versions, 'errors', window, bucketSeconds)} dataKey="t" series={series} withLegend withDots={false} />
        </Paper>
      </SimpleGrid>
      <Paper withBorder p="md" data-testid="usage-version-scores">
        <Title order={6} mb="sm">
          {regression ? t('usage.byVersion.valuesChart') : t('usage.byVersion.scoresChart')}
        </Title>
        <SimpleGrid cols={{ base: 1, md: Math.min(versions.length, 3) }}>
          {versions.map((version, index) => (
            <div key={version.model_version} data-testid={`usage-version-scores-${version.model_version}`}>
              <Text size="sm" fw={600} mb={4}>
                {version.model_version_name}
              </Text>
              {version.scores.length === 0 ? (
                <Text size="sm" c="dimmed">
                  {t('usage.byVersion.noScores')}
                </Text>
              ) : (
                <BarChart
                  h={160}
                  data={histogramRows(version.scores)}
                  dataKey="range"
                  series={[{ name: 'count', label: t('usage.byVersion.answers'), color: VERSION_COLORS[index % VERSION_COLORS.length] }]}
                />
              )}
            </div>
          ))}
        </SimpleGrid>
      </Paper>
    </>
  );
}
