import { BarChart, LineChart } from '@mantine/charts';
import { Alert, Group, Paper, SegmentedControl, SimpleGrid, Skeleton, Stack, Switch, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Stat } from '@/components/Stat';
import { currentLanguage } from '@/i18n';
import { formatNumber } from '@/lib/numbers';
import { errorMessage } from '@/lib/notifications';
import type { UsageWindow } from '../api/keys';
import { errorRate, formatMs, USAGE_WINDOWS, usageRows } from '../api/usage';
import { USAGE_REFRESH_MS, useUsage } from '../hooks/useDeploy';
import { VersionUsage } from './VersionUsage';

/**
 * Calls, errors and latency percentiles of a deployment over a window, refreshed live, and the same
 * split by the model version that answered (canaries).
 */
export function UsagePanel({ deploymentId, regression = false }: { deploymentId: number; regression?: boolean }) {
  const { t } = useTranslation('deploy');
  const [window, setWindow] = useState<UsageWindow>('1h');
  const [live, setLive] = useState(true);
  const { data, isPending, isError, error, dataUpdatedAt } = useUsage(deploymentId, window, live);
  const rows = data ? usageRows(data, window) : [];
  return (
    <Stack>
      <Group justify="space-between">
        <SegmentedControl
          value={window}
          onChange={(value) => setWindow(value as UsageWindow)}
          data={USAGE_WINDOWS.map((value) => ({ value, label: t(`usage.windows.${value}`) }))}
          data-testid="usage-window"
        />
        <Group gap="md">
          {dataUpdatedAt > 0 && (
            <Text size="xs" c="dimmed" data-testid="usage-updated">
              {t('usage.updated', { time: new Date(dataUpdatedAt).toLocaleTimeString(currentLanguage()) })}
            </Text>
          )}
          <Switch
            label={t('usage.live', { seconds: USAGE_REFRESH_MS / 1000 })}
            checked={live}
            onChange={(event) => setLive(event.currentTarget.checked)}
            data-testid="usage-live"
          />
        </Group>
      </Group>
      {isPending && <Skeleton h={240} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {data && (
        <>
          <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} data-testid="usage-totals" data-calls={data.totals.calls} data-errors={data.totals.errors}>
            <Stat label={t('usage.calls')} value={formatNumber(data.totals.calls)} testId="usage-calls" size="xl" />
            <Stat label={t('usage.errors')} value={formatNumber(data.totals.errors)} testId="usage-errors" size="xl" />
            <Stat label="p50" value={formatMs(data.totals.p50_ms)} testId="usage-p50" size="xl" />
            <Stat label="p95" value={formatMs(data.totals.p95_ms)} testId="usage-p95" size="xl" />
            <Stat label="p99" value={formatMs(data.totals.p99_ms)} testId="usage-p99" size="xl" />
            <Stat label={t('usage.errorRate')} value={errorRate(data.totals)} testId="usage-error-rate" size="xl" />
          </SimpleGrid>
          {data.totals.calls === 0 ? (
            <Paper withBorder p="xl" ta="center" data-testid="usage-empty">
              <Text c="dimmed">{t('usage.empty')}</Text>
            </Paper>
          ) : (
            <SimpleGrid cols={{ base: 1, lg: 2 }}>
              <Paper withBorder p="md" data-testid="usage-calls-chart">
                <Title order={6} mb="sm">
                  {t('usage.callsChart')}
                </Title>
                <BarChart
                  h={220}
                  data={rows}
                  dataKey="t"
                  series={[
                    { name: 'calls', label: t('usage.calls'), color: 'blue.6' },
                    { name: 'errors', label: t('usage.errors'), color: 'red.6' },
                  ]}
                  withLegend
                />
              </Paper>
              <Paper withBorder p="md" data-testid="usage-latency-chart">
                <Title order={6} mb="sm">
                  {t('usage.latencyChart')}
                </Title>
                <LineChart
                  h={220}
                  data={rows}
                  dataKey="t"
                  series={[
                    { name: 'p50', color: 'teal.6' },
                    { name: 'p95', color: 'orange.6' },
                    { name: 'p99', color: 'red.6' },
                  ]}
                  connectNulls
                  withLegend
                  dotProps={{ r: 3 }}
                />
              </Paper>
            </SimpleGrid>
          )}
          {data.totals.calls > 0 && data.by_version && <VersionUsage versions={data.by_version} window={window} bucketSeconds={data.bucket_seconds} regression={regression} />}
        </>
      )}
    </Stack>
  );
}
