import '@mantine/charts/styles.css';
import { LineChart } from '@mantine/charts';
import { Badge, Button, Group, Paper, Select, SimpleGrid, Stack, Table, Text, Title, UnstyledButton } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ForecastChart } from '@/components/ForecastChart';
import type { ForecastMetrics, ForecastReport as Report, SeriesScores } from '@/lib/forecasting';
import { formatNumber as formatCount } from '@/lib/numbers';
import { formatNumber, formatPercent } from '../../api/modelVersions';
import { inSeriesOrder, splitName } from '../reportFormat';
import { forecastModelName, formatSkill } from './forecastFormat';

/** A skill as a signed percentage, green when the model beats seasonal naive. */
export function SkillText({ value, testId }: { value: number | null; testId?: string }) {
  if (value === null || !Number.isFinite(value)) {
    return (
      <Text span size="sm" data-testid={testId}>
        —
      </Text>
    );
  }
  return (
    <Text span size="sm" fw={600} c={value > 0 ? 'teal' : value < 0 ? 'red' : 'dimmed'} data-testid={testId} data-value={value}>
      {formatSkill(value)}
    </Text>
  );
}

type SortKey = 'series' | 'mase' | 'smape' | 'rmse' | 'coverage' | 'seasonal_naive_mase' | 'skill';
const SERIES_SHOWN = 50;

function sortSeries(rows: SeriesScores[], key: SortKey, descending: boolean): SeriesScores[] {
  const sign = descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    if (key === 'series') return sign * a.series.localeCompare(b.series);
    const x = a[key];
    const y = b[key];
    // missing values last either way
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return sign * (x - y);
  });
}

/** Every series' test scores; sorted by MASE, worst first, until a column head is clicked. */
function SeriesTable({ report, onPick }: { report: Report; onPick: (series: string) => void }) {
  const { t } = useTranslation('training');
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'mase', descending: true });
  const [all, setAll] = useState(false);
  const rows = useMemo(() => sortSeries(report.per_series, sort.key, sort.descending), [report.per_series, sort]);
  const plotted = new Set(report.plots.map((plot) => plot.series));
  const shown = all ? rows : rows.slice(0, SERIES_SHOWN);
  const columns: { key: SortKey; label: string }[] = [
    { key: 'series', label: t('forecast.columns.series') },
    { key: 'mase', label: t('forecast.metrics.mase') },
    { key: 'smape', label: t('forecast.metrics.smape') },
    { key: 'rmse', label: t('forecast.metrics.rmse') },
    { key: 'coverage', label: t('forecast.columns.coverage') },
    { key: 'seasonal_naive_mase', label: t('forecast.columns.seasonalNaiveMase') },
    { key: 'skill', label: t('forecast.columns.skill') },
  ];
  const toggle = (key: SortKey) =>
    setSort((current) => (current.key === key ? { key, descending: !current.descending } : { key, descending: key !== 'series' && key !== 'skill' }));
  return (
    <Paper withBorder p="md">
      <Title order={5} mb={4}>
        {t('forecast.perSeries')}
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        {t('forecast.perSeriesHint')}
      </Text>
      <Table.ScrollContainer minWidth={640}>
        <Table fz="sm" verticalSpacing={4} highlightOnHover data-testid="forecast-series-table" data-sort={`${sort.key}:${sort.descending ? 'desc' : 'asc'}`}>
          <Table.Thead>
            <Table.Tr>
              {columns.map((column) => (
                <Table.Th key={column.key} aria-sort={sort.key === column.key ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
                  <UnstyledButton onClick={() => toggle(column.key)} fw={600} fz="sm" data-testid={`forecast-sort-${column.key}`}>
                    {column.label}
                    {sort.key === column.key ? (sort.descending ? ' ↓' : ' ↑') : ''}
                  </UnstyledButton>
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((row) => (
              <Table.Tr
                key={row.series}
                data-testid={`forecast-series-${row.series}`}
                onClick={plotted.has(row.series) ? () => onPick(row.series) : undefined}
                style={plotted.has(row.series) ? { cursor: 'pointer' } : undefined}
                title={plotted.has(row.series) ? t('forecast.showPlot') : undefined}
              >
                <Table.Td>{row.series}</Table.Td>
                <Table.Td>{formatNumber(row.mase)}</Table.Td>
                <Table.Td>{formatNumber(row.smape)}</Table.Td>
                <Table.Td>{formatNumber(row.rmse)}</Table.Td>
                <Table.Td>{formatPercent(row.coverage, 0)}</Table.Td>
                <Table.Td>{formatNumber(row.seasonal_naive_mase)}</Table.Td>
                <Table.Td>
                  <SkillText value={row.skill} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {rows.length > SERIES_SHOWN && (
        <Group mt="xs">
          <Button size="xs" variant="subtle" onClick={() => setAll(!all)} data-testid="forecast-series-all">
            {all ? t('forecast.showFewer', { count: SERIES_SHOWN }) : t('forecast.showAll', { count: rows.length })}
          </Button>
          {report.series_count > rows.length && (
            <Text size="xs" c="dimmed">
              {t('forecast.seriesCut', { shown: formatCount(rows.length), total: formatCount(report.series_count) })}
            </Text>
          )}
        </Group>
      )}
    </Paper>
  );
}

/** MASE, sMAPE and coverage of a set of forecasts as table cells. */
function MetricCells({ metrics }: { metrics: ForecastMetrics | null }) {
  return (
    <>
      <Table.Td>{formatNumber(metrics?.mase)}</Table.Td>
      <Table.Td>{formatNumber(metrics?.smape)}</Table.Td>
      <Table.Td>{formatPercent(metrics?.coverage, 0)}</Table.Td>
    </>
  );
}

/**
 * A forecaster's report on the test window (the last `horizon` steps of every series): MASE,
 * sMAPE, RMSE, interval coverage and width next to seasonal naive's and the skill over it; a
 * chosen series' forecast against the actual values with the interval band and seasonal naive
 * dashed; the error by horizon step; every series' scores (worst first); the rolling-origin
 * windows; the baselines and candidates with the weight each got in the forecaster.
 */
export function ForecastReport({ report }: { report: Report }) {
  const { t } = useTranslation('training');
  const [picked, setPicked] = useState<string | null>(null);
  const plot = report.plots.find((item) => item.series === picked) ?? report.plots[0] ?? null;
  const split = splitName(report.split);
  const level = formatPercent(report.interval_level, 0);
  const naive = report.seasonal_naive;
  const horizonData = report.by_horizon.map((row) => ({ step: row.step, model: row.mase, seasonal_naive: row.seasonal_naive_mase }));
  const modelLabel = forecastModelName(report.model_name);
  const naiveLabel = forecastModelName('seasonal_naive');
  return (
    <Stack data-testid="forecast-report">
      <Text size="sm" c="dimmed" data-testid="forecast-summary">
        {t('forecast.summary', {
          series: formatCount(report.series_count),
          observations: formatCount(report.observations),
          horizon: report.horizon,
          frequency: report.frequency,
          split,
          model: modelLabel,
        })}
      </Text>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }}>
        <StatPair label={t('forecast.metrics.mase')} value={formatNumber(report.headline.mase)} baseline={formatNumber(naive.mase)} testId="forecast-mase" />
        <StatPair label={t('forecast.metrics.smape')} value={`${formatNumber(report.headline.smape)}%`} baseline={`${formatNumber(naive.smape)}%`} testId="forecast-smape" />
        <StatPair label={t('forecast.metrics.rmse')} value={formatNumber(report.headline.rmse)} baseline={formatNumber(naive.rmse)} testId="forecast-rmse" />
        <Paper withBorder p="sm">
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            {t('forecast.coverage', { level })}
          </Text>
          <Text fw={700} size="xl" data-testid="forecast-coverage">
            {formatPercent(report.headline.coverage)}
          </Text>
          <Text size="xs" c="dimmed">
            {t('forecast.coverageHint', { level })}
          </Text>
        </Paper>
        <Paper withBorder p="sm">
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            {t('forecast.width')}
          </Text>
          <Text fw={700} size="xl" data-testid="forecast-width">
            {formatPercent(report.headline.width)}
          </Text>
          <Text size="xs" c="dimmed">
            {t('forecast.widthHint')}
          </Text>
        </Paper>
        <Paper withBorder p="sm">
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            {t('forecast.skill')}
          </Text>
          <Text fw={700} size="xl" component="div">
            <SkillText value={report.skill} testId="forecast-skill" />
          </Text>
          <Text size="xs" c="dimmed">
            {t('forecast.skillHint')}
          </Text>
        </Paper>
      </SimpleGrid>

      <Paper withBorder p="md">
        <Group justify="space-between" mb="xs" align="flex-end">
          <div>
            <Title order={5}>{t('forecast.plotTitle')}</Title>
            <Text size="xs" c="dimmed">
              {t('forecast.plotHint', { level, count: report.plots.length })}
            </Text>
          </div>
          {report.plots.length > 1 && (
            <Select
              size="xs"
              w={220}
              searchable
              label={t('forecast.columns.series')}
              data={report.plots.map((item) => item.series)}
              value={plot?.series ?? null}
              onChange={(value) => value && setPicked(value)}
              allowDeselect={false}
              data-testid="forecast-plot-series"
            />
          )}
        </Group>
        {plot ? (
          <ForecastChart
            key={plot.series}
            testId="forecast-plot"
            data={{
              timestamps: plot.timestamps,
              actual: plot.actual,
              forecastStart: plot.forecast_start,
              mean: plot.mean,
              lower: plot.lower,
              upper: plot.upper,
              baseline: plot.seasonal_naive,
            }}
            labels={{
              actual: t('forecast.chart.actual'),
              forecast: t('forecast.chart.forecast', { model: modelLabel }),
              interval: t('forecast.chart.interval', { level }),
              baseline: naiveLabel,
              forecastStart: t('forecast.chart.start'),
            }}
          />
        ) : (
          <Text size="sm" c="dimmed">
            {t('forecast.noPlots')}
          </Text>
        )}
      </Paper>

      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Paper withBorder p="md" data-testid="forecast-horizon-chart" data-steps={horizonData.length}>
          <Title order={5} mb={4}>
            {t('forecast.byHorizon')}
          </Title>
          <Text size="xs" c="dimmed" mb="sm">
            {t('forecast.byHorizonHint')}
          </Text>
          <LineChart
            h={220}
            data={horizonData}
            dataKey="step"
            series={[
              { name: 'model', label: modelLabel, color: 'blue.6' },
              { name: 'seasonal_naive', label: naiveLabel, color: 'orange.6', strokeDasharray: '5 4' },
            ]}
            xAxisLabel={t('forecast.step')}
            yAxisLabel={t('forecast.metrics.mase')}
            valueFormatter={(value) => formatNumber(value)}
            {...inSeriesOrder(['model', 'seasonal_naive'])}
            withLegend
            curveType="linear"
          />
        </Paper>
        <Paper withBorder p="md">
          <Title order={5} mb={4}>
            {t('forecast.backtest')}
          </Title>
          <Text size="xs" c="dimmed" mb="sm">
            {t('forecast.backtestHint')}
          </Text>
          <Table.ScrollContainer minWidth={480}>
            <Table fz="sm" verticalSpacing={4} data-testid="forecast-backtest">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('forecast.columns.window')}</Table.Th>
                  <Table.Th>{t('forecast.columns.cutoff')}</Table.Th>
                  <Table.Th>{t('forecast.metrics.mase')}</Table.Th>
                  <Table.Th>{t('forecast.metrics.smape')}</Table.Th>
                  <Table.Th>{t('forecast.columns.coverage')}</Table.Th>
                  <Table.Th>{t('forecast.columns.seasonalNaiveMase')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {report.backtest.map((window) => (
                  <Table.Tr key={window.index} data-testid={`forecast-window-${window.index}`} data-role={window.role}>
                    <Table.Td>
                      <Text size="sm" fw={window.role === 'test' ? 700 : 400} c={window.role === 'test' ? 'teal' : undefined}>
                        {t(`forecast.roles.${window.role}`)}
                      </Text>
                    </Table.Td>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{window.cutoff}</Table.Td>
                    <MetricCells metrics={window.metrics} />
                    <Table.Td>{formatNumber(window.seasonal_naive.mase)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      </SimpleGrid>

      <SeriesTable report={report} onPick={setPicked} />

      <Paper withBorder p="md">
        <Title order={5} mb={4}>
          {t('forecast.baselines')}
        </Title>
        <Text size="xs" c="dimmed" mb="sm">
          {t('forecast.baselinesHint')}
        </Text>
        <Table.ScrollContainer minWidth={560}>
          <Table fz="sm" verticalSpacing={4} data-testid="forecast-baselines">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('forecast.columns.model')}</Table.Th>
                <Table.Th>{t('forecast.columns.testMase')}</Table.Th>
                <Table.Th>{t('forecast.columns.testSmape')}</Table.Th>
                <Table.Th>{t('forecast.columns.testCoverage')}</Table.Th>
                <Table.Th>{t('forecast.columns.validationMase')}</Table.Th>
                <Table.Th>{t('forecast.columns.weight')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {report.baselines.map((row) => (
                <Table.Tr key={row.model} data-testid={`forecast-baseline-${row.model}`} data-weight={row.chosen_weight}>
                  <Table.Td>
                    {forecastModelName(row.model)}
                    {row.chosen_weight > 0 && (
                      <Badge ml={6} size="xs" color="teal" variant="light">
                        {t('forecast.chosen')}
                      </Badge>
                    )}
                  </Table.Td>
                  <MetricCells metrics={row.test} />
                  <Table.Td>{formatNumber(row.validation?.mase)}</Table.Td>
                  <Table.Td>{row.chosen_weight > 0 ? formatPercent(row.chosen_weight, 0) : '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
    </Stack>
  );
}

function StatPair({ label, value, baseline, testId }: { label: string; value: string; baseline: string; testId: string }) {
  const { t } = useTranslation('training');
  return (
    <Paper withBorder p="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fw={700} size="xl" data-testid={testId}>
        {value}
      </Text>
      <Text size="xs" c="dimmed" data-testid={`${testId}-naive`}>
        {t('forecast.vsNaive', { value: baseline })}
      </Text>
    </Paper>
  );
}
