import { BarChart, LineChart } from '@mantine/charts';
import { Alert, Group, Paper, SegmentedControl, SimpleGrid, Skeleton, Stack, Switch, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Stat } from '@/components/Stat';
import { errorMessage } from '@/lib/notifications';
import { formatNumber, formatPercent } from '@/lib/numbers';
import type { UsageWindow } from '../api/keys';
import { agreementRows, histogramRows } from '../api/traffic';
import { USAGE_WINDOWS } from '../api/usage';
import { USAGE_REFRESH_MS, useShadowAgreement } from '../hooks/useDeploy';

/**
 * How the shadow's answers compare with the served ones: top-1 agreement and the mean score (or
 * value) delta over time, and the deltas' histogram.
 */
export function ShadowAgreementPanel({ deploymentId, shadowVersion }: { deploymentId: number; shadowVersion: number }) {
  const { t } = useTranslation('deploy');
  const [window, setWindow] = useState<UsageWindow>('1h');
  const [live, setLive] = useState(true);
  const { data, isPending, isError, error } = useShadowAgreement(deploymentId, window, true, live);
  const regression = (data?.prediction_kind ?? '').startsWith('regression');
  const deltaLabel = regression ? t('traffic.agreement.valueDelta') : t('traffic.agreement.scoreDelta');
  const rows = data ? agreementRows(data.points, window, data.bucket_seconds) : [];
  return (
    <Stack mt="md" data-testid="shadow-agreement" data-shadow={shadowVersion}>
      <Group justify="space-between">
        <SegmentedControl
          value={window}
          onChange={(value) => setWindow(value as UsageWindow)}
          data={USAGE_WINDOWS.map((value) => ({ value, label: t(`usage.windows.${value}`) }))}
          data-testid="shadow-window"
        />
        <Switch
          label={t('usage.live', { seconds: USAGE_REFRESH_MS / 1000 })}
          checked={live}
          onChange={(event) => setLive(event.currentTarget.checked)}
        />
      </Group>
      {isPending && <Skeleton h={200} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {data && (
        <>
          <SimpleGrid cols={{ base: 2, md: 4 }} data-testid="shadow-totals" data-compared={data.compared}>
            <Stat label={t('traffic.agreement.compared')} value={formatNumber(data.compared)} testId="shadow-compared" />
            <Stat
              label={t('traffic.agreement.agreement')}
              value={typeof data.agreement === 'number' ? formatPercent(data.agreement, 1) : '—'}
              testId="shadow-agreement-value"
            />
            <Stat
              label={deltaLabel}
              value={typeof data.mean_delta === 'number' ? formatNumber(data.mean_delta, { maximumFractionDigits: 3 }) : '—'}
              testId="shadow-delta"
            />
            <Stat label={t('traffic.agreement.errors')} value={formatNumber(data.errors)} testId="shadow-errors" />
          </SimpleGrid>
          {data.compared === 0 ? (
            <Paper withBorder p="lg" ta="center" data-testid="shadow-nothing">
              <Text c="dimmed">{t('traffic.agreement.nothing', { version: data.shadow_version_name ?? '' })}</Text>
            </Paper>
          ) : (
            <SimpleGrid cols={{ base: 1, lg: 2 }}>
              <Paper withBorder p="md" data-testid="shadow-agreement-chart">
                <Title order={6} mb="sm">
                  {t('traffic.agreement.overTime')}
                </Title>
                <LineChart
                  h={220}
                  data={rows}
                  dataKey="t"
                  series={[
                    ...(regression ? [] : [{ name: 'agreement', label: `${t('traffic.agreement.agreement')} (%)`, color: 'teal.6' }]),
                    { name: 'delta', label: deltaLabel, color: 'orange.6', yAxisId: 'right' },
                  ]}
                  withRightYAxis
                  yAxisProps={{ domain: [0, 100] }}
                  connectNulls
                  withLegend
                  dotProps={{ r: 3 }}
                />
              </Paper>
              <Paper withBorder p="md" data-testid="shadow-delta-histogram">
                <Title order={6} mb="sm">
                  {t('traffic.agreement.histogram', { delta: deltaLabel })}
                </Title>
                <BarChart
                  h={220}
                  data={histogramRows(data.deltas)}
                  dataKey="range"
                  series={[{ name: 'count', label: t('traffic.agreement.instances'), color: 'grape.6' }]}
                />
              </Paper>
            </SimpleGrid>
          )}
        </>
      )}
    </Stack>
  );
}
