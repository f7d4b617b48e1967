import { Badge, Paper, Progress, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Stat } from '@/components/Stat';
import { formatNumber, formatPercent } from '../../api/modelVersions';
import type { ValidationReport } from './forecastFormat';

/**
 * A forecaster's training as it goes: each candidate's validation MASE on the backtest windows as
 * the trainer reports it, then the chosen forecaster's (MASE, sMAPE, interval coverage). A
 * forecaster has no epochs or steps to plot: its "curve" is this list.
 */
export function ForecastValidation({ reports, fraction }: { reports: ValidationReport[]; fraction: number | undefined }) {
  const { t } = useTranslation('training');
  const candidates = reports.filter((report) => !report.chosen);
  const chosen = [...reports].reverse().find((report) => report.chosen) ?? null;
  const best = candidates.reduce<number | null>((low, report) => (low === null || report.mase < low ? report.mase : low), null);
  return (
    <Stack data-testid="forecast-validation" data-reports={reports.length}>
      {fraction !== undefined && <Progress value={fraction * 100} size="sm" aria-label={formatPercent(fraction, 0)} />}
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <Stat label={t('forecast.monitor.candidates')} value={String(candidates.length)} testId="forecast-validation-candidates" />
        <Stat label={t('forecast.monitor.bestCandidate')} value={formatNumber(best)} testId="forecast-validation-best" />
        <Stat label={t('forecast.monitor.chosenMase')} value={formatNumber(chosen?.mase)} testId="forecast-validation-chosen" />
        <Stat label={t('forecast.monitor.chosenCoverage')} value={formatPercent(chosen?.coverage)} testId="forecast-validation-coverage" />
      </SimpleGrid>
      <Paper withBorder p="md">
        <Title order={6} mb={4}>
          {t('forecast.monitor.title')}
        </Title>
        <Text size="xs" c="dimmed" mb="sm">
          {t('forecast.monitor.hint')}
        </Text>
        {reports.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('forecast.monitor.waiting')}
          </Text>
        ) : (
          <Table fz="sm" verticalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('forecast.monitor.report')}</Table.Th>
                <Table.Th>{t('forecast.columns.validationMase')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {reports.map((report) => (
                <Table.Tr key={report.seq} data-testid={`forecast-validation-${report.seq}`} data-chosen={report.chosen || undefined}>
                  <Table.Td>
                    {report.message}
                    {report.chosen && (
                      <Badge ml={6} size="xs" color="teal" variant="light">
                        {t('forecast.chosen')}
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td fw={report.chosen || report.mase === best ? 700 : 400}>{formatNumber(report.mase)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Paper>
    </Stack>
  );
}
