import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Alert, Group, Paper, Select, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@/lib/notifications';
import { formatNumber as formatLocalNumber } from '@/lib/numbers';
import { formatNumber, formatPercent, isRegression, type MetricPair, type RegressionReport } from '../api/modelVersions';
import { useComparison, useEvaluation, useModelVersions } from '../hooks/useTraining';
import { OverallHead, PointsDelta } from './CompareParts';
import { inSeriesOrder } from './reportFormat';
import { isDetection } from '../api/detection';
import { DetectionCompare } from './detection/DetectionCompare';
import { isForecastingTemplate } from '@/lib/forecasting';
import { ForecastCompare } from './forecast/ForecastCompare';

const isForecaster = (version: { template?: string | null }) => isForecastingTemplate(version.template);

function PairCells({ pair, testId }: { pair: MetricPair; testId?: string }) {
  return (
    <>
      <Table.Td>{formatPercent(pair.a)}</Table.Td>
      <Table.Td>{formatPercent(pair.b)}</Table.Td>
      <Table.Td>
        <PointsDelta value={pair.delta} testId={testId} />
      </Table.Td>
    </>
  );
}

/** A regression metric's delta (b minus a), green when B is better (lower MAE/RMSE, higher R²). */
function RegressionDelta({ value, betterWhen, testId }: { value: number | null; betterWhen: 'lower' | 'higher'; testId: string }) {
  if (value === null) return <Text size="sm">—</Text>;
  const better = betterWhen === 'lower' ? value < 0 : value > 0;
  return (
    <Text size="sm" c={value === 0 ? 'dimmed' : better ? 'teal' : 'red'} fw={600} data-testid={testId} data-value={value}>
      {value > 0 ? '+' : ''}
      {formatNumber(value)}
    </Text>
  );
}

/** Regression metric pairs of two reports; lower is better for MAE and RMSE, higher for R². */
function regressionRows(a: RegressionReport, b: RegressionReport) {
  const pairOf = (x: number, y: number): MetricPair => ({ a: x, b: y, delta: y - x });
  // metric names are the same in every language
  return [
    { name: 'MAE', key: 'mae', betterWhen: 'lower' as const, pair: pairOf(a.mae, b.mae) },
    { name: 'RMSE', key: 'rmse', betterWhen: 'lower' as const, pair: pairOf(a.rmse, b.rmse) },
    { name: 'R²', key: 'r2', betterWhen: 'higher' as const, pair: pairOf(a.r2, b.r2) },
  ];
}

/** Two regression versions: MAE, RMSE and R² of each on its test split, computed from their reports. */
function RegressionCompare({ a, b, aName, bName }: { a: number; b: number; aName: string; bName: string }) {
  const { t } = useTranslation('training');
  const reportA = useEvaluation(a);
  const reportB = useEvaluation(b);
  if (reportA.isError || reportB.isError) return <Alert color="red">{errorMessage(reportA.error ?? reportB.error)}</Alert>;
  if (!reportA.data || !reportB.data) return <Skeleton h={160} />;
  const evalA = reportA.data.evaluation?.kind === 'regression_report' ? reportA.data.evaluation : null;
  const evalB = reportB.data.evaluation?.kind === 'regression_report' ? reportB.data.evaluation : null;
  if (!evalA || !evalB) {
    return (
      <Alert color="yellow" data-testid="compare-unavailable">
        {t('compare.noRegressionReport', { name: !evalA ? aName : bName })}
      </Alert>
    );
  }
  const rows = regressionRows(evalA, evalB);
  return (
    <Paper withBorder p="md" data-testid="compare-regression">
      <Title order={5} mb="xs">
        {t('compare.overall')}
      </Title>
      <Table fz="sm" data-testid="compare-overall">
        <OverallHead aName={aName} bName={bName} />
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.key}>
              <Table.Td>
                {row.name}{' '}
                <Text span size="xs" c="dimmed">
                  {row.betterWhen === 'lower' ? t('compare.lowerBetter') : t('compare.higherBetter')}
                </Text>
              </Table.Td>
              <Table.Td>{formatNumber(row.pair.a)}</Table.Td>
              <Table.Td>{formatNumber(row.pair.b)}</Table.Td>
              <Table.Td>
                <RegressionDelta value={row.pair.delta} betterWhen={row.betterWhen} testId={`compare-overall-delta-${row.key}`} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="xs" c="dimmed" mt="xs" data-testid="compare-regression-note">
        {evalA.samples !== evalB.samples
          ? t('compare.regressionNoteSizes', { a: formatLocalNumber(evalA.samples), b: formatLocalNumber(evalB.samples) })
          : t('compare.regressionNote')}
      </Text>
    </Paper>
  );
}

/**
 * Two model versions side by side: classifiers by overall metrics and per-class deltas, regression
 * models by MAE, RMSE and R² (every delta is b minus a). A classifier and a regression model are
 * not comparable; the view says so.
 */
export function CompareView({
  projectId,
  a,
  b,
  onChange,
}: {
  projectId: number | null;
  a: number | null;
  b: number | null;
  onChange: (a: number | null, b: number | null) => void;
}) {
  const { t } = useTranslation('training');
  const versions = useModelVersions(projectId ?? Number.NaN);
  const list = versions.data?.results ?? [];
  const versionA = list.find((version) => version.id === a);
  const versionB = list.find((version) => version.id === b);
  const mode: 'pending' | 'classification' | 'regression' | 'detection' | 'forecast' | 'mixed' =
    a === null || b === null || a === b || (versions.isPending && projectId !== null)
      ? 'pending'
      : versionA && versionB && (isForecaster(versionA) || isForecaster(versionB))
        ? isForecaster(versionA) && isForecaster(versionB)
          ? 'forecast'
          : 'mixed'
        : versionA && versionB && (isDetection(versionA) || isDetection(versionB))
        ? isDetection(versionA) && isDetection(versionB)
          ? 'detection'
          : 'mixed'
        : versionA && versionB && (isRegression(versionA) || isRegression(versionB))
          ? isRegression(versionA) && isRegression(versionB)
            ? 'regression'
            : 'mixed'
          : 'classification';
  const { data, isPending, isError, error, fetchStatus } = useComparison(mode === 'classification' ? a : null, mode === 'classification' ? b : null);
  const options = list.map((version) => ({ value: String(version.id), label: version.name }));
  const comparison = data?.kind === 'classification_comparison' ? data : null;
  const overall = comparison
    ? [
        { key: 'accuracy', metric: t('compare.metrics.accuracy'), pair: comparison.accuracy },
        { key: 'macro-f1', metric: t('compare.metrics.macroF1'), pair: comparison.macro_f1 },
        { key: 'weighted-f1', metric: t('compare.metrics.weightedF1'), pair: comparison.weighted_f1 },
        ...Object.entries(comparison.top_k_accuracy).map(([k, pair]) => ({ key: `top-${k}-accuracy`, metric: t('compare.metrics.topK', { k }), pair })),
      ]
    : [];
  const chart = comparison?.per_class.map((row) => ({ class: row.class, [comparison.a_name]: row.f1.a ?? 0, [comparison.b_name]: row.f1.b ?? 0 })) ?? [];

  return (
    <Stack data-testid="compare-view">
      <Group align="flex-end">
        <Select
          label="A"
          data={options}
          value={a === null ? null : String(a)}
          onChange={(value) => onChange(value ? Number(value) : null, b)}
          w={160}
          data-testid="compare-a"
        />
        <Select
          label="B"
          data={options}
          value={b === null ? null : String(b)}
          onChange={(value) => onChange(a, value ? Number(value) : null)}
          w={160}
          data-testid="compare-b"
        />
        <Text size="sm" c="dimmed">
          {mode === 'regression' || mode === 'forecast' ? t('compare.deltasUnits') : t('compare.deltasPoints')}
        </Text>
      </Group>
      {mode === 'mixed' && versionA && versionB && (
        <Alert color="yellow" data-testid="compare-unavailable">
          {isForecaster(versionA) || isForecaster(versionB)
            ? t('forecast.compare.mixed', { name: isForecaster(versionA) ? versionB.name : versionA.name })
            : isDetection(versionA) || isDetection(versionB)
            ? t('compare.mixedDetection', { name: isDetection(versionA) ? versionB.name : versionA.name })
            : t(isRegression(versionA) ? 'compare.mixedRegressionFirst' : 'compare.mixedClassifierFirst', { a: versionA.name, b: versionB.name })}
        </Alert>
      )}
      {mode === 'detection' && versionA && versionB && <DetectionCompare a={versionA.id} b={versionB.id} aName={versionA.name} bName={versionB.name} />}
      {mode === 'forecast' && versionA && versionB && <ForecastCompare a={versionA.id} b={versionB.id} aName={versionA.name} bName={versionB.name} />}
      {mode === 'regression' && versionA && versionB && <RegressionCompare a={versionA.id} b={versionB.id} aName={versionA.name} bName={versionB.name} />}
      {(a === null || b === null || a === b) && <Text c="dimmed">{t('compare.pickTwo')}</Text>}
      {isPending && fetchStatus !== 'idle' && <Skeleton h={200} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {comparison && (
        <>
          <Paper withBorder p="md">
            <Title order={5} mb="xs">
              {t('compare.overall')}
            </Title>
            <Table fz="sm" data-testid="compare-overall">
              <OverallHead aName={comparison.a_name} bName={comparison.b_name} />
              <Table.Tbody>
                {overall.map((row) => (
                  <Table.Tr key={row.key}>
                    <Table.Td>{row.metric}</Table.Td>
                    <PairCells pair={row.pair} testId={`compare-overall-delta-${row.key}`} />
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Paper>
          {/* one above the other: seven columns of deltas need the width, and so do many classes' bars */}
          <Stack>
            <Paper withBorder p="md">
              <Title order={5} mb="xs">
                {t('compare.perClass')}
              </Title>
              <Table.ScrollContainer minWidth={640}>
                <Table fz="sm" data-testid="compare-per-class">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t('compare.columns.class')}</Table.Th>
                      <Table.Th>{t('compare.columns.f1Of', { name: comparison.a_name })}</Table.Th>
                      <Table.Th>{t('compare.columns.f1Of', { name: comparison.b_name })}</Table.Th>
                      <Table.Th>{t('compare.columns.deltaF1')}</Table.Th>
                      <Table.Th>{t('compare.columns.deltaPrecision')}</Table.Th>
                      <Table.Th>{t('compare.columns.deltaRecall')}</Table.Th>
                      <Table.Th>{t('compare.columns.support')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {comparison.per_class.map((row) => (
                      <Table.Tr key={row.class} data-testid={`compare-class-${row.class}`}>
                        <Table.Td>{row.class}</Table.Td>
                        <PairCells pair={row.f1} testId={`compare-class-f1-delta-${row.class}`} />
                        <Table.Td>
                          <PointsDelta value={row.precision.delta} />
                        </Table.Td>
                        <Table.Td>
                          <PointsDelta value={row.recall.delta} />
                        </Table.Td>
                        <Table.Td>
                          {row.support.a ?? '—'} / {row.support.b ?? '—'}
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            </Paper>
            <Paper withBorder p="md" data-testid="compare-chart" data-classes={chart.map((row) => row.class).join(',')}>
              <Title order={5} mb="xs">
                {t('compare.f1PerClass')}
              </Title>
              <BarChart
                h={Math.max(240, chart.length * 28)}
                data={chart}
                dataKey="class"
                series={[
                  { name: comparison.a_name, color: 'gray.5' },
                  { name: comparison.b_name, color: 'blue.6' },
                ]}
                yAxisProps={{ domain: [0, 1] }}
                xAxisProps={chart.length <= 30 ? { interval: 0 } : undefined}
                valueFormatter={(value) => formatPercent(value)}
                {...inSeriesOrder([comparison.a_name, comparison.b_name])}
                withLegend
              />
            </Paper>
          </Stack>
        </>
      )}
    </Stack>
  );
}
