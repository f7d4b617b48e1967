import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Alert, Paper, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@/lib/notifications';
import { formatNumber as formatLocalNumber } from '@/lib/numbers';
import { asDetectionReport, compareDetectionReports, formatAP, hasAP, type ClassAPDelta } from '../../api/detection';
import { useEvaluation } from '../../hooks/useTraining';
import { OverallHead, PointsDelta } from '../CompareParts';
import { inSeriesOrder } from '../reportFormat';

function PairRow({ name, pair, testId }: { name: string; pair: ClassAPDelta; testId: string }) {
  return (
    <Table.Tr data-testid={`${testId}-row`}>
      <Table.Td>{name}</Table.Td>
      <Table.Td>{formatAP(pair.a)}</Table.Td>
      <Table.Td>{formatAP(pair.b)}</Table.Td>
      <Table.Td>
        <PointsDelta value={pair.delta} testId={testId} />
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * Two detection model versions: mAP@[.5:.95] and mAP@.5 of each, and each class's AP@[.5:.95]
 * with its delta (B minus A, in points), computed from their evaluation reports.
 */
export function DetectionCompare({ a, b, aName, bName }: { a: number; b: number; aName: string; bName: string }) {
  const { t } = useTranslation('training');
  const reportA = useEvaluation(a);
  const reportB = useEvaluation(b);
  if (reportA.isError || reportB.isError) return <Alert color="red">{errorMessage(reportA.error ?? reportB.error)}</Alert>;
  if (!reportA.data || !reportB.data) return <Skeleton h={160} />;
  const evalA = asDetectionReport(reportA.data.evaluation);
  const evalB = asDetectionReport(reportB.data.evaluation);
  if (!evalA || !evalB) {
    return (
      <Alert color="yellow" data-testid="compare-unavailable">
        {t('compare.noDetectionReport', { name: !evalA ? aName : bName })}
      </Alert>
    );
  }
  const comparison = compareDetectionReports(evalA, evalB);
  const chart = comparison.per_class.map((row) => ({ class: row.label, [aName]: hasAP(row.a) ? row.a : 0, [bName]: hasAP(row.b) ? row.b : 0 }));
  return (
    <Stack data-testid="compare-detection">
      <Paper withBorder p="md">
        <Title order={5} mb="xs">
          {t('compare.overall')}
        </Title>
        <Table fz="sm" data-testid="compare-overall">
          <OverallHead aName={aName} bName={bName} />
          <Table.Tbody>
            <PairRow name={t('detection.metrics.map')} pair={comparison.map} testId="compare-overall-delta-map" />
            <PairRow name={t('detection.metrics.map50')} pair={comparison.map50} testId="compare-overall-delta-map50" />
          </Table.Tbody>
        </Table>
      </Paper>
      <Paper withBorder p="md">
        <Title order={5} mb="xs">
          {t('compare.perClassAP')}
        </Title>
        <Table.ScrollContainer minWidth={420}>
          <Table fz="sm" data-testid="compare-per-class">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('compare.columns.class')}</Table.Th>
                <Table.Th>{t('compare.columns.apOf', { name: aName })}</Table.Th>
                <Table.Th>{t('compare.columns.apOf', { name: bName })}</Table.Th>
                <Table.Th>{t('compare.columns.deltaAP')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {comparison.per_class.map((row) => (
                <PairRow key={row.label} name={row.label} pair={row} testId={`compare-class-ap-delta-${row.label}`} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {evalA.split !== evalB.split || evalA.samples !== evalB.samples ? (
          <Text size="xs" c="dimmed" mt="xs" data-testid="compare-detection-note">
            {t('compare.detectionNoteSizes', { a: formatLocalNumber(evalA.samples), b: formatLocalNumber(evalB.samples) })}
          </Text>
        ) : null}
      </Paper>
      <Paper withBorder p="md" data-testid="compare-chart" data-classes={chart.map((row) => row.class).join(',')}>
        <Title order={5} mb="xs">
          {t('compare.apPerClass')}
        </Title>
        <BarChart
          h={Math.max(240, chart.length * 28)}
          data={chart}
          dataKey="class"
          series={[
            { name: aName, color: 'gray.5' },
            { name: bName, color: 'blue.6' },
          ]}
          yAxisProps={{ domain: [0, 1] }}
          xAxisProps={chart.length <= 30 ? { interval: 0 } : undefined}
          valueFormatter={(value) => formatAP(value)}
          {...inSeriesOrder([aName, bName])}
          withLegend
        />
      </Paper>
    </Stack>
  );
}
