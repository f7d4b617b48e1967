import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Paper, SimpleGrid, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { QueryState } from '@/components/QueryState';
import { Stat } from '@/components/Stat';
import { formatNumber, formatPercent } from '@/lib/numbers';
import { useAgreement } from '../hooks/useTasks';
import { agreementMatrix, kappaColor, kappaStrength } from './agreementMatrix';

function formatKappa(kappa: number | null | undefined): string {
  return kappa === null || kappa === undefined ? formatNumber(null) : kappa.toFixed(2);
}

const ROW_HEIGHT = 28;

/** A chart's card with its title, or a sentence when it has nothing to draw. */
function ChartPaper({ title, testId, empty, emptyText, children }: { title: string; testId: string; empty: boolean; emptyText: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" data-testid={testId}>
      <Title order={5} mb="sm">
        {title}
      </Title>
      {empty ? (
        <Text c="dimmed" size="sm">
          {emptyText}
        </Text>
      ) : (
        children
      )}
    </Paper>
  );
}

/**
 * How far the task's annotators agree on the samples they labeled in common: percent agreement and
 * Fleiss' kappa overall, Cohen's kappa per pair (a heatmap), agreement per class (bars), and each
 * annotator's work: throughput per hour and rejection rate (table and charts). Object detection is
 * compared object by object (`taskType` words the pairs' counts as objects).
 */
export function AgreementPanel({ taskId, taskType }: { taskId: number; taskType?: string }) {
  const { t } = useTranslation('labeling');
  const agreement = useAgreement(taskId);
  if (!agreement.data) return <QueryState isPending={agreement.isPending} error={agreement.error} />;
  const report = agreement.data;
  const matrix = agreementMatrix(report);
  const perClass = report.per_class.map((entry) => ({ name: entry.name, agreement: entry.percent_agreement === null ? 0 : entry.percent_agreement * 100, kappa: entry.kappa }));
  const annotatorRows = report.annotators.map((annotator) => ({
    name: annotator.username,
    perHour: annotator.per_hour ?? 0,
    rejection: annotator.rejection_rate === null ? 0 : annotator.rejection_rate * 100,
  }));
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Stat label={t('agreement.overlapping')} value={formatNumber(report.overlapping_samples)} testId="agreement-overlapping" />
        <Stat label={t('agreement.percent')} value={formatPercent(report.percent_agreement)} testId="agreement-percent" />
        <Stat
          label={t('agreement.fleiss')}
          value={formatKappa(report.fleiss_kappa)}
          hint={t(`agreement.strength.${kappaStrength(report.fleiss_kappa)}`)}
          testId="agreement-fleiss"
        />
      </SimpleGrid>
      {report.overlapping_samples === 0 && (
        <Text c="dimmed" size="sm" data-testid="agreement-no-overlap">
          {t('agreement.noOverlap')}
        </Text>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <ChartPaper title={t('agreement.pairs')} testId="agreement-heatmap" empty={matrix.ids.length < 2} emptyText={t('agreement.pairsEmpty')}>
          <Table withTableBorder withColumnBorders style={{ tableLayout: 'fixed' }}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th />
                {matrix.names.map((name) => (
                  <Table.Th key={name} style={{ textAlign: 'center' }}>
                    <Text size="xs" truncate>
                      {name}
                    </Text>
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {matrix.cells.map((row, rowIndex) => (
                <Table.Tr key={matrix.ids[rowIndex]}>
                  <Table.Th>
                    <Text size="xs" truncate>
                      {matrix.names[rowIndex]}
                    </Text>
                  </Table.Th>
                  {row.map((cell, columnIndex) => (
                    <Tooltip
                      key={matrix.ids[columnIndex]}
                      disabled={!cell}
                      label={cell ? t(taskType === 'object_detection' ? 'agreement.pairTooltipObjects' : 'agreement.pairTooltip', { agreement: formatPercent(cell.agreement), shared: cell.shared }) : ''}
                    >
                      <Table.Td
                        style={{ textAlign: 'center', background: rowIndex === columnIndex ? undefined : kappaColor(cell?.kappa ?? null) }}
                        data-testid={`agreement-cell-${matrix.ids[rowIndex]}-${matrix.ids[columnIndex]}`}
                      >
                        <Text size="sm" c={rowIndex === columnIndex ? 'dimmed' : 'dark'}>
                          {rowIndex === columnIndex ? '' : formatKappa(cell?.kappa)}
                        </Text>
                      </Table.Td>
                    </Tooltip>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Text size="xs" c="dimmed" mt="xs">
            {t('agreement.pairsHint')}
          </Text>
        </ChartPaper>
        <ChartPaper title={t('agreement.perClass')} testId="agreement-per-class" empty={perClass.length === 0} emptyText={t('agreement.perClassEmpty')}>
          <NameBars data={perClass} series={{ name: 'agreement', label: t('agreement.percent'), color: 'teal.6' }} percent />
        </ChartPaper>
        <ChartPaper title={t('agreement.throughput')} testId="agreement-throughput" empty={annotatorRows.length === 0} emptyText={t('agreement.annotatorsEmpty')}>
          <NameBars data={annotatorRows} series={{ name: 'perHour', label: t('agreement.perHour'), color: 'blue.6' }} />
        </ChartPaper>
        <ChartPaper title={t('agreement.rejectionRate')} testId="agreement-rejections" empty={annotatorRows.length === 0} emptyText={t('agreement.annotatorsEmpty')}>
          <NameBars data={annotatorRows} series={{ name: 'rejection', label: t('agreement.rejectionRate'), color: 'red.6' }} percent />
        </ChartPaper>
      </SimpleGrid>
      <Paper withBorder p="md">
        <Title order={5} mb="sm">
          {t('agreement.annotators')}
        </Title>
        <Table data-testid="agreement-annotators">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('agreement.columns.annotator')}</Table.Th>
              <Table.Th>{t('agreement.columns.assigned')}</Table.Th>
              <Table.Th>{t('agreement.columns.submitted')}</Table.Th>
              <Table.Th>{t('agreement.columns.accepted')}</Table.Th>
              <Table.Th>{t('agreement.columns.rejected')}</Table.Th>
              <Table.Th>{t('agreement.rejectionRate')}</Table.Th>
              <Table.Th>{t('agreement.perHour')}</Table.Th>
              <Table.Th>{t('agreement.withOthers')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {report.annotators.map((annotator) => (
              <Table.Tr key={annotator.annotator} data-testid={`agreement-annotator-${annotator.annotator}`}>
                <Table.Td>{annotator.username}</Table.Td>
                <Table.Td>{formatNumber(annotator.assigned)}</Table.Td>
                <Table.Td>{formatNumber(annotator.submitted)}</Table.Td>
                <Table.Td>{formatNumber(annotator.accepted)}</Table.Td>
                <Table.Td>{formatNumber(annotator.rejected)}</Table.Td>
                <Table.Td>{formatPercent(annotator.rejection_rate)}</Table.Td>
                <Table.Td>{formatNumber(annotator.per_hour, { maximumFractionDigits: 1 })}</Table.Td>
                <Table.Td>{formatPercent(annotator.agreement_with_others)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
    </Stack>
  );
}

/** One horizontal bar per name (a class, an annotator): a percentage on 0-100 or a plain number. */
function NameBars({
  data,
  series,
  percent = false,
}: {
  data: { name: string }[];
  series: { name: string; label: string; color: string };
  percent?: boolean;
}) {
  return (
    <BarChart
      h={Math.max(120, data.length * ROW_HEIGHT + 40)}
      data={data}
      dataKey="name"
      orientation="vertical"
      series={[series]}
      yAxisProps={{ interval: 0, width: 110 }}
      xAxisProps={percent ? { domain: [0, 100] } : undefined}
      valueFormatter={(value) => `${formatNumber(value, { maximumFractionDigits: 1 })}${percent ? '%' : ''}`}
      gridAxis="x"
    />
  );
}
