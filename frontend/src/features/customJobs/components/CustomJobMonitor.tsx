import '@mantine/charts/styles.css';
import { LineChart } from '@mantine/charts';
import { Alert, Anchor, Badge, Button, Code, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Stat } from '@/components/Stat';
import { useJobEvents, type Job } from '@/features/jobs';
import { formatSeconds } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { formatBytes, formatNumber } from '@/lib/numbers';
import { isCustomJobResult, specOf } from '../api/types';
import { toCustomCurves, type MetricSeries } from './customCurves';
import { RunEnvironmentView } from './RunEnvironmentView';

const COLORS = ['blue.6', 'orange.6', 'teal.6', 'grape.6', 'red.6', 'cyan.6', 'lime.7', 'indigo.6'];

function MetricCurve({ series, color }: { series: MetricSeries; color: string }) {
  const { t } = useTranslation('customJobs');
  const last = series.points[series.points.length - 1];
  return (
    <Paper withBorder p="sm" data-testid={`custom-curve-${series.name}`} data-points={series.points.length}>
      <Group justify="space-between" mb={4}>
        <Title order={6}>{series.name}</Title>
        <Text size="xs" c="dimmed">
          {t('monitor.last', { value: last ? formatNumber(last.value, { maximumSignificantDigits: 4 }) : '—', step: last?.step ?? '—' })}
        </Text>
      </Group>
      <LineChart
        h={180}
        data={series.points.map((point) => ({ step: point.step, [series.name]: point.value }))}
        dataKey="step"
        series={[{ name: series.name, label: series.name, color }]}
        curveType="linear"
        withDots={series.points.length < 30}
        xAxisProps={{ type: 'number', domain: ['dataMin', 'dataMax'], allowDecimals: false }}
        xAxisLabel={t('monitor.step')}
        valueFormatter={(value) => formatNumber(Number(value), { maximumSignificantDigits: 4 })}
        withTooltip
        tooltipAnimationDuration={0}
        lineChartProps={{ syncId: 'custom-job' }}
      />
    </Paper>
  );
}

/**
 * A custom job's run: live curves of what its code reported with `log_metrics` (one chart per
 * metric, by step), why it stopped, what it used, the environment it ran in, and the model version
 * it made (`deploy` renders the deploy buttons for it).
 */
export function CustomJobMonitor({
  job,
  deploy,
}: {
  job: Pick<Job, 'id' | 'status' | 'project'> & { result: unknown; params?: unknown };
  deploy?: (version: { id: number; name: string; project: number }) => ReactNode;
}) {
  const { t } = useTranslation('customJobs');
  const live = job.status === 'queued' || job.status === 'running';
  const { data: events = [], isError, error } = useJobEvents(job.id, live);
  const curves = useMemo(() => toCustomCurves(events as Parameters<typeof toCustomCurves>[0]), [events]);
  const result = isCustomJobResult(job.result) ? job.result : null;
  const spec = specOf(job.params);
  const modelVersion = result?.model_version ?? null;

  return (
    <Stack data-testid="custom-job-monitor" data-live={live || undefined}>
      <Group gap="xs">
        <Title order={4}>{t('monitor.title')}</Title>
        {live && (
          <Badge variant="dot" color="blue" data-testid="custom-job-live">
            {t('monitor.live')}
          </Badge>
        )}
      </Group>
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {result && (
        <Paper withBorder p="sm" data-testid="custom-job-outcome" data-stopped={result.stopped ?? undefined} data-exit-code={result.exit_code ?? undefined}>
          <Stack gap="xs">
            <Group gap="xs">
              {result.stopped ? (
                <Badge color={result.stopped === 'pruned' ? 'gray' : 'orange'} data-testid="custom-job-stopped">
                  {t(`stopped.${result.stopped}`)}
                </Badge>
              ) : (
                <Badge color={result.exit_code === 0 ? 'teal' : 'red'} data-testid="custom-job-exit">
                  {t('monitor.exitCode', { code: result.exit_code ?? '—' })}
                </Badge>
              )}
              {Object.entries(result.isolation ?? {}).map(([what, enforced]) => (
                <Badge key={what} variant="outline" color={enforced ? 'teal' : 'yellow'} data-testid={`custom-job-isolation-${what}`}>
                  {t(enforced ? 'monitor.isolated' : 'monitor.notIsolated', { what: t(`isolation.${what === 'network' ? 'network' : 'user'}`) })}
                </Badge>
              ))}
            </Group>
            {result.reason && (
              <Text size="sm" data-testid="custom-job-reason">
                {result.reason}
              </Text>
            )}
            <SimpleGrid cols={{ base: 2, sm: 4 }}>
              <Stat label={t('monitor.duration')} value={formatSeconds(result.duration_s)} testId="custom-job-duration" />
              <Stat label={t('monitor.peakMemory')} value={t('monitor.mib', { value: formatNumber(result.peak_memory_mb, { maximumFractionDigits: 0 }) })} testId="custom-job-memory" />
              <Stat label={t('monitor.metricsCount')} value={String(Object.keys(result.metrics ?? {}).length)} testId="custom-job-metrics-count" />
              <Stat label={t('monitor.artifacts')} value={String((result.artifacts ?? []).length)} testId="custom-job-artifacts" />
            </SimpleGrid>
          </Stack>
        </Paper>
      )}
      {modelVersion !== null && (
        <Alert color="teal" variant="light" data-testid="custom-job-model">
          <Stack gap="xs">
            <Group justify="space-between">
              <Text size="sm">{t('monitor.modelReady', { name: result?.model_version_name ?? `#${modelVersion}` })}</Text>
              <Button component={Link} to={`/model-versions/${modelVersion}`} size="xs" data-testid="custom-job-model-link">
                {t('monitor.openModel')}
              </Button>
            </Group>
            {job.project !== null && deploy?.({ id: modelVersion, name: result?.model_version_name ?? `#${modelVersion}`, project: job.project })}
          </Stack>
        </Alert>
      )}
      {result && !result.model && job.status === 'succeeded' && (
        <Text size="sm" c="dimmed" data-testid="custom-job-no-model">
          {t('monitor.noModel')}
        </Text>
      )}
      <Text size="xs" c="dimmed" data-testid="custom-curve-count" data-metrics={curves.length}>
        {t('monitor.metricCount', { count: curves.length })}
      </Text>
      {curves.length === 0 ? (
        <Text size="sm" c="dimmed">
          {live ? t('monitor.waiting') : t('monitor.noMetrics')}
        </Text>
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          {curves.map((series, index) => (
            <MetricCurve key={series.name} series={series} color={COLORS[index % COLORS.length]} />
          ))}
        </SimpleGrid>
      )}
      {spec && (
        <Paper withBorder p="sm" data-testid="custom-job-spec">
          <Table fz="sm" withRowBorders={false}>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={180}>{t('lineage.entryPoint')}</Table.Th>
                <Table.Td>
                  <Code>{spec.entry_point}</Code>
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{t('lineage.args')}</Table.Th>
                <Table.Td>{spec.args.length ? <Code>{spec.args.join(' ')}</Code> : '—'}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{t('lineage.hyperparameters')}</Table.Th>
                <Table.Td data-testid="custom-job-hyperparameters">
                  {Object.keys(spec.hyperparameters).length ? <Code>{Object.entries(spec.hyperparameters).map(([name, value]) => `${name}=${String(value)}`).join(' ')}</Code> : '—'}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{t('lineage.limits')}</Table.Th>
                <Table.Td>{t('lineage.limitsValue', { wall: formatSeconds(spec.limits.wall_time_s), memory: spec.limits.memory_mb, cpus: spec.limits.cpus })}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{t('lineage.network')}</Table.Th>
                <Table.Td>{spec.network ? t('lineage.networkOn') : t('lineage.networkOff')}</Table.Td>
              </Table.Tr>
              {spec.requirements.trim() && (
                <Table.Tr>
                  <Table.Th>{t('lineage.requirements')}</Table.Th>
                  <Table.Td>
                    <Code block fz="xs">
                      {spec.requirements}
                    </Code>
                  </Table.Td>
                </Table.Tr>
              )}
            </Table.Tbody>
          </Table>
        </Paper>
      )}
      {result && (result.artifacts ?? []).length > 0 && (
        <Paper withBorder p="sm" data-testid="custom-job-artifact-list">
          <Title order={6} mb={4}>
            {t('monitor.artifacts')}
          </Title>
          <Stack gap={2}>
            {(result.artifacts ?? []).map((artifact) => (
              <Group key={artifact.path} gap="xs">
                <Anchor href={`/api/v1/jobs/${job.id}/artifacts/?path=${encodeURIComponent(artifact.path)}`} download size="sm" data-testid={`custom-job-artifact-${artifact.path}`}>
                  {artifact.name || artifact.path}
                </Anchor>
                {artifact.size_bytes && (
                  <Text size="xs" c="dimmed">
                    {formatBytes(Number(artifact.size_bytes))}
                  </Text>
                )}
              </Group>
            ))}
          </Stack>
        </Paper>
      )}
      {result?.environment && <RunEnvironmentView environment={result.environment} />}
    </Stack>
  );
}
