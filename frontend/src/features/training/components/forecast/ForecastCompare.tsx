import '@mantine/charts/styles.css';
import { LineChart } from '@mantine/charts';
import { Alert, Paper, SimpleGrid, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { asForecastComparison, type ForecastMetricPair } from '@/lib/forecasting';
import { errorMessage } from '@/lib/notifications';
import { formatNumber, formatPercent } from '../../api/modelVersions';
import { useComparison } from '../../hooks/useTraining';
import { OverallHead } from '../CompareParts';
import { inSeriesOrder } from '../reportFormat';

type Better = 'lower' | 'higher' | 'nominal';

/** A delta (b minus a), green when B is better; coverage's delta is not judged here (best nearest the nominal level). */
function Delta({ pair, better, percent = false, testId }: { pair: ForecastMetricPair; better: Better; percent?: boolean; testId?: string }) {
  const value = pair.delta;
  if (value === null || !Number.isFinite(value)) {
    return (
      <Text size="sm" data-testid={testId}>
        —
      </Text>
    );
  }
  const improved = better === 'lower' ? value < 0 : better === 'higher' ? value > 0 : null;
  const text = percent ? formatPercent(value, 1) : formatNumber(value);
  return (
    <Text size="sm" fw={600} c={value === 0 || improved === null ? 'dimmed' : improved ? 'teal' : 'red'} data-testid={testId} data-value={value}>
      {value > 0 ? `+${text}` : text}
    </Text>
  );
}

/**
 * Two forecasters of a project compared on their test windows (the API's forecast_comparison):
 * MASE, sMAPE, RMSE, coverage and skill; MASE per series (largest changes first) and by horizon.
 */
export function ForecastCompare({ a, b, aName, bName }: { a: number; b: number; aName: string; bName: string }) {
  const { t } = useTranslation('training');
  const { data, isError, error } = useComparison(a, b);
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  if (!data) return <Skeleton h={200} />;
  const comparison = asForecastComparison(data);
  if (!comparison) {
    return (
      <Alert color="yellow" data-testid="compare-unavailable">
        {t('forecast.compare.noReport', { name: aName })}
      </Alert>
    );
  }
  const rows: { key: string; name: string; pair: ForecastMetricPair; better: Better; percent?: boolean }[] = [
    { key: 'mase', name: t('forecast.metrics.mase'), pair: comparison.mase, better: 'lower' },
    { key: 'smape', name: t('forecast.metrics.smape'), pair: comparison.smape, better: 'lower' },
    { key: 'rmse', name: t('forecast.metrics.rmse'), pair: comparison.rmse, better: 'lower' },
    { key: 'coverage', name: t('forecast.columns.coverage'), pair: comparison.coverage, better: 'nominal', percent: true },
    { key: 'skill', name: t('forecast.skill'), pair: comparison.skill, better: 'higher', percent: true },
  ];
  const hint = (better: Better) =>
    better === 'lower' ? t('compare.lowerBetter') : better === 'higher' ? t('compare.higherBetter') : t('forecast.compare.nearestNominal');
  const value = (v: number | null, percent?: boolean) => (percent ? formatPercent(v) : formatNumber(v));
  const perSeries = [...comparison.per_series].sort((x, y) => Math.abs(y.mase.delta ?? 0) - Math.abs(x.mase.delta ?? 0));
  const horizon = comparison.by_horizon.map((row) => ({ step: row.step, a: row.mase.a, b: row.mase.b }));
  return (
    <Stack data-testid="compare-forecast">
      <Paper withBorder p="md">
        <Title order={5} mb="xs">
          {t('forecast.compare.title')}
        </Title>
        <Table fz="sm" data-testid="compare-overall">
          <OverallHead aName={aName} bName={bName} />
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={row.key}>
                <Table.Td>
                  {row.name}{' '}
                  <Text span size="xs" c="dimmed">
                    {hint(row.better)}
                  </Text>
                </Table.Td>
                <Table.Td>{value(row.pair.a, row.percent)}</Table.Td>
                <Table.Td>{value(row.pair.b, row.percent)}</Table.Td>
                <Table.Td>
                  <Delta pair={row.pair} better={row.better} percent={row.percent} testId={`compare-overall-delta-${row.key}`} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Text size="xs" c="dimmed" mt="xs">
          {t('forecast.compare.note')}
        </Text>
      </Paper>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Paper withBorder p="md">
          <Title order={5} mb={4}>
            {t('forecast.compare.perSeries')}
          </Title>
          <Text size="xs" c="dimmed" mb="sm">
            {t('forecast.compare.perSeriesHint')}
          </Text>
          <Table.ScrollContainer minWidth={360} mah={360}>
            <Table fz="sm" verticalSpacing={4} data-testid="compare-forecast-series">
              <OverallHead aName={aName} bName={bName} />
              <Table.Tbody>
                {perSeries.slice(0, 200).map((row) => (
                  <Table.Tr key={row.series} data-testid={`compare-series-${row.series}`}>
                    <Table.Td>{row.series}</Table.Td>
                    <Table.Td>{formatNumber(row.mase.a)}</Table.Td>
                    <Table.Td>{formatNumber(row.mase.b)}</Table.Td>
                    <Table.Td>
                      <Delta pair={row.mase} better="lower" />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
        <Paper withBorder p="md" data-testid="compare-forecast-horizon" data-steps={horizon.length}>
          <Title order={5} mb="sm">
            {t('forecast.compare.byHorizon')}
          </Title>
          <LineChart
            h={240}
            data={horizon}
            dataKey="step"
            series={[
              { name: 'a', label: aName, color: 'gray.6' },
              { name: 'b', label: bName, color: 'blue.6' },
            ]}
            xAxisLabel={t('forecast.step')}
            yAxisLabel={t('forecast.metrics.mase')}
            valueFormatter={(v) => formatNumber(v)}
            {...inSeriesOrder(['a', 'b'])}
            withLegend
            curveType="linear"
          />
        </Paper>
      </SimpleGrid>
    </Stack>
  );
}
