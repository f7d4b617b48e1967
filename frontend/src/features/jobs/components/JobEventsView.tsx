import '@mantine/charts/styles.css';
import { LineChart } from '@mantine/charts';
import { Alert, Badge, Paper, ScrollArea, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { translateDynamic } from '@/i18n';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { progressFraction, type JobEvent } from '../api/jobs';
import { useJobEvents } from '../hooks/useJobs';

const TYPE_COLORS: Record<string, string> = { status: 'violet', progress: 'blue', log: 'gray' };

/** Progress events as (seconds since the first event, percent) points. */
function progressSeries(events: JobEvent[]): { second: number; percent: number }[] {
  if (events.length === 0) return [];
  const start = new Date(events[0].at).getTime();
  return events
    .flatMap((event) => (event.data.kind === 'progress' ? [{ event, fraction: progressFraction(event.data) }] : []))
    .filter((point): point is { event: JobEvent; fraction: number } => point.fraction !== null)
    .map(({ event, fraction }) => ({
      second: Math.round((new Date(event.at).getTime() - start) / 100) / 10,
      percent: Math.round(fraction * 1000) / 10,
    }));
}

export function JobEventsView({ jobId, live }: { jobId: number; live: boolean }) {
  const { t } = useTranslation('jobs');
  const { data: events, isPending, isError, error } = useJobEvents(jobId, live);
  if (isPending) return <Skeleton h={120} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  const series = progressSeries(events);
  return (
    <Stack gap="sm">
      {series.length > 1 && (
        <Paper withBorder p="sm">
          <Title order={5} mb="xs">
            {t('events.chartTitle')}
          </Title>
          <LineChart
            h={180}
            data={series}
            dataKey="second"
            series={[{ name: 'percent', label: t('events.seriesProgress'), color: 'blue.6' }]}
            curveType="linear"
            withDots={series.length < 40}
            yAxisProps={{ domain: [0, 100], ticks: [0, 25, 50, 75, 100] }}
            xAxisLabel={t('events.seconds')}
            data-testid="job-progress-chart"
          />
        </Paper>
      )}
      <Paper withBorder>
        <ScrollArea.Autosize mah={320}>
          <Table fz="xs" verticalSpacing={4} stickyHeader data-testid="job-events">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={40}>#</Table.Th>
                <Table.Th>{t('events.time')}</Table.Th>
                <Table.Th>{t('events.type')}</Table.Th>
                <Table.Th>{t('events.message')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {events.length === 0 && (
                <Table.Tr>
                  <Table.Td colSpan={4}>
                    <Text size="xs" c="dimmed">
                      {t('events.empty')}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              )}
              {events.map((event) => (
                <Table.Tr key={event.seq}>
                  <Table.Td>{event.seq}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(event.at)}</Table.Td>
                  <Table.Td>
                    <Badge size="xs" variant="light" color={TYPE_COLORS[event.type] ?? 'gray'}>
                      {translateDynamic(`jobs:eventType.${event.type}`, event.type)}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{event.message}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea.Autosize>
      </Paper>
    </Stack>
  );
}
