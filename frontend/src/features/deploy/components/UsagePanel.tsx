import { BarChart, LineChart } from '@mantine/charts';
import { Alert, Group, Paper, SegmentedControl, SimpleGrid, Skeleton, Stack, Switch, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Stat } from '@/components/Stat';
import { errorMessage } from '@/lib/notifications';
import type { UsageWindow } from '../api/keys';
import { errorRate, formatMs, USAGE_WINDOWS, usageRows } from '../api/usage';
import { USAGE_REFRESH_MS, useUsage } from '../hooks/useDeploy';

/** Calls, errors and latency percentiles of a deployment over a window, refreshed live. */
export function UsagePanel({ deploymentId }: { deploymentId: number }) {
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
          data={USAGE_WINDOWS}
          data-testid="usage-window"
        />
        <Group gap="md">
          {dataUpdatedAt > 0 && (
            <Text size="xs" c="dimmed" data-testid="usage-updated">
              updated {new Date(dataUpdatedAt).toLocaleTimeString()}
            </Text>
          )}
          <Switch
            label={`Live (every ${USAGE_REFRESH_MS / 1000}s)`}
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
            <Stat label="Calls" value={String(data.totals.calls)} testId="usage-calls" size="xl" />
            <Stat label="Errors" value={String(data.totals.errors)} testId="usage-errors" size="xl" />
            <Stat label="p50" value={formatMs(data.totals.p50_ms)} testId="usage-p50" size="xl" />
            <Stat label="p95" value={formatMs(data.totals.p95_ms)} testId="usage-p95" size="xl" />
            <Stat label="p99" value={formatMs(data.totals.p99_ms)} testId="usage-p99" size="xl" />
            <Stat label="Error rate" value={errorRate(data.totals)} testId="usage-error-rate" size="xl" />
          </SimpleGrid>
          {data.totals.calls === 0 ? (
            <Paper withBorder p="xl" ta="center" data-testid="usage-empty">
              <Text c="dimmed">No calls in this window yet. Use the “Try it” tab or one of the code snippets.</Text>
            </Paper>
          ) : (
            <SimpleGrid cols={{ base: 1, lg: 2 }}>
              <Paper withBorder p="md" data-testid="usage-calls-chart">
                <Title order={6} mb="sm">
                  Calls and errors
                </Title>
                <BarChart
                  h={220}
                  data={rows}
                  dataKey="t"
                  series={[
                    { name: 'calls', color: 'blue.6' },
                    { name: 'errors', color: 'red.6' },
                  ]}
                  withLegend
                />
              </Paper>
              <Paper withBorder p="md" data-testid="usage-latency-chart">
                <Title order={6} mb="sm">
                  Latency (ms, server side)
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
        </>
      )}
    </Stack>
  );
}
