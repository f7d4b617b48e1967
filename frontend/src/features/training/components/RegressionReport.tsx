import '@mantine/charts/styles.css';
import { BarChart, ScatterChart } from '@mantine/charts';
import { Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Stat } from '@/components/Stat';
import { formatNumber as formatCount } from '@/lib/numbers';
import { formatNumber, sampleIdOf, type FeatureImportance as Importance, type RegressionReport as Report } from '../api/modelVersions';
import { cellText, inSeriesOrder, shownColumns, splitName } from './reportFormat';
import { spreadOf } from './spreadFormat';
import { CrossValidationPanel, MetricIntervalText } from './ValidationSpread';

/** Permutation feature importance (how much the test score drops when a column is shuffled), top 20. */
export function FeatureImportanceChart({ features, score }: { features: Importance[]; score: string }) {
  const { t } = useTranslation('training');
  if (features.length === 0) return null;
  const top = features.slice(0, 20).map((row) => ({ feature: row.feature, importance: row.importance }));
  return (
    <Paper withBorder p="md" data-testid="eval-feature-importance" data-features={top.map((row) => row.feature).join(',')}>
      <Title order={5} mb={4}>
        {t('regression.importance.title')}
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        {features.length > top.length
          ? t('regression.importance.hintTop', { score, top: top.length, total: features.length })
          : t('regression.importance.hint', { score })}{' '}
        {t('regression.importance.mostImportant')}{' '}
        <span data-testid="eval-feature-importance-top">{top.slice(0, 3).map((row) => row.feature).join(', ')}</span>.
      </Text>
      <BarChart
        h={Math.max(180, top.length * 26)}
        data={top}
        dataKey="feature"
        orientation="vertical"
        series={[{ name: 'importance', label: t('regression.importance.series'), color: 'violet.6' }]}
        valueFormatter={(value) => formatNumber(value)}
        yAxisProps={{ width: 120, interval: 0 }}
      />
    </Paper>
  );
}

/**
 * A regression model's report: MAE, RMSE, R², residuals against the prediction, predicted against
 * actual (with the diagonal of perfect predictions), the residual histogram, the largest errors
 * with their rows, and feature importance.
 */
export function RegressionReport({ evaluation }: { evaluation: Report }) {
  const { t } = useTranslation('training');
  const split = splitName(evaluation.split);
  const axes = { predicted: t('regression.axes.predicted'), residual: t('regression.axes.residual'), actual: t('regression.axes.actual') };
  const points = evaluation.residuals.points;
  const { edges, counts } = evaluation.residuals.histogram;
  const histogram = counts.map((count, index) => ({ from: edges[index] ?? 0, to: edges[index + 1] ?? 0, count }));
  const largestErrors = evaluation.largest_errors;
  const residuals = points.map((p) => ({ predicted: p.predicted, residual: p.predicted - p.actual }));
  const values = points.flatMap((p) => [p.actual, p.predicted]);
  const low = values.length ? Math.min(...values) : 0;
  const high = values.length ? Math.max(...values) : 1;
  const diagonal = Array.from({ length: 21 }, (_, i) => low + ((high - low) * i) / 20).map((v) => ({ actual: v, predicted: v }));
  const columns = shownColumns(largestErrors[0]?.values, evaluation.feature_importance);
  const spread = spreadOf(evaluation);
  const rows = t('report.nouns.row', { count: evaluation.samples });
  const hint = (text: string, metric: string) => (
    <>
      {text}
      {spread.intervals.some((entry) => entry.metric === metric) && (
        <>
          <br />
          <MetricIntervalText intervals={spread.intervals} metric={metric} samples={evaluation.samples} noun={rows} />
        </>
      )}
    </>
  );
  return (
    <Stack data-testid="eval-regression">
      <Text size="sm" c="dimmed">
        {t('regression.summary', { samples: formatCount(evaluation.samples), split })}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Stat size="xl" label="MAE" value={formatNumber(evaluation.mae)} hint={hint(t('regression.maeHint'), 'mae')} testId="eval-mae" />
        <Stat size="xl" label="RMSE" value={formatNumber(evaluation.rmse)} hint={hint(t('regression.rmseHint'), 'rmse')} testId="eval-rmse" />
        <Stat size="xl" label="R²" value={formatNumber(evaluation.r2)} hint={hint(t('regression.r2Hint'), 'r2')} testId="eval-r2" />
      </SimpleGrid>
      {spread.crossValidation && <CrossValidationPanel cv={spread.crossValidation} />}
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Paper withBorder p="md" data-testid="eval-residual-plot" data-points={residuals.length}>
          <Title order={5} mb="xs">
            {t('regression.residualsTitle')}
          </Title>
          <ScatterChart
            h={280}
            data={[{ name: t('regression.testRows'), color: 'blue.6', data: residuals }]}
            dataKey={{ x: 'predicted', y: 'residual' }}
            labels={{ x: axes.predicted, y: axes.residual }}
            xAxisLabel={axes.predicted}
            yAxisLabel={axes.residual}
            valueFormatter={(value) => formatNumber(value)}
            referenceLines={[{ y: 0, label: t('regression.noError'), color: 'gray.6' }]}
          />
        </Paper>
        <Paper withBorder p="md" data-testid="eval-predicted-vs-actual" data-points={points.length}>
          <Title order={5} mb="xs">
            {t('regression.predictedVsActual')}
          </Title>
          <ScatterChart
            h={280}
            data={[
              { name: t('regression.testRows'), color: 'blue.6', data: points.map((p) => ({ actual: p.actual, predicted: p.predicted })) },
              { name: t('regression.perfect'), color: 'gray.4', data: diagonal },
            ]}
            dataKey={{ x: 'actual', y: 'predicted' }}
            labels={{ x: axes.actual, y: axes.predicted }}
            xAxisLabel={axes.actual}
            yAxisLabel={axes.predicted}
            valueFormatter={(value) => formatNumber(value)}
            {...inSeriesOrder([t('regression.testRows'), t('regression.perfect')])}
            withLegend
          />
        </Paper>
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Paper withBorder p="md" data-testid="eval-residual-histogram" data-bins={histogram.length}>
          <Title order={5} mb="xs">
            {t('regression.histogram')}
          </Title>
          <BarChart
            h={220}
            data={histogram.map((bin) => ({ bin: formatNumber((bin.from + bin.to) / 2), rows: bin.count }))}
            dataKey="bin"
            series={[{ name: 'rows', label: t('regression.rows'), color: 'blue.6' }]}
          />
        </Paper>
        <FeatureImportanceChart features={evaluation.feature_importance} score="R²" />
      </SimpleGrid>
      <Paper withBorder p="md" data-testid="eval-largest-errors">
        <Title order={5} mb="sm">
          {t('regression.largestErrors')}
        </Title>
        {largestErrors.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('regression.noErrors')}
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={560}>
            <Table fz="sm" verticalSpacing={4}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('regression.columns.actual')}</Table.Th>
                  <Table.Th>{t('regression.columns.predicted')}</Table.Th>
                  <Table.Th>{t('regression.columns.residual')}</Table.Th>
                  {columns.map((column) => (
                    <Table.Th key={column}>{column}</Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {largestErrors.map((row, index) => (
                  <Table.Tr key={sampleIdOf(row.sample) ?? `i${index}`} data-testid={`largest-error-${sampleIdOf(row.sample) ?? index}`}>
                    <Table.Td>{formatNumber(row.actual)}</Table.Td>
                    <Table.Td>{formatNumber(row.predicted)}</Table.Td>
                    <Table.Td>{formatNumber(row.predicted - row.actual)}</Table.Td>
                    {columns.map((column) => (
                      <Table.Td key={column}>{cellText(row.values[column])}</Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Paper>
    </Stack>
  );
}
