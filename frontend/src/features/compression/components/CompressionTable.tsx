import { Anchor, Badge, Table, Text, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatBytes, formatNumber } from '@/lib/numbers';
import { formatCount, formatDelta, formatMetric, formatMs, timesSmaller } from '../api/format';
import { describeRecipe } from '../api/compressions';
import type { BrowserLatency, CompressionReport, VariantSummary } from '../api/types';

export type BrowserCell = { state: 'running' } | { state: 'error'; message: string } | { state: 'done'; timing: Pick<BrowserLatency, 'median_ms' | 'p90_ms' | 'runs'> };

type Row = { key: string; label: string; modelVersion: number; summary: VariantSummary; isParent: boolean; recipe?: string; notes: string[] };

function BrowserLatencyCell({ cell, testId }: { cell: BrowserCell | undefined; testId: string }) {
  const { t } = useTranslation('compression');
  if (!cell) return <span data-testid={testId}>—</span>;
  if (cell.state === 'running') return <Text size="sm" c="dimmed" data-testid={testId} data-state="running">{t('browser.running')}</Text>;
  if (cell.state === 'error')
    return (
      <Tooltip label={cell.message}>
        <Text size="sm" c="red" data-testid={testId} data-state="error">{t('browser.failed')}</Text>
      </Tooltip>
    );
  return (
    <Tooltip label={t('browser.detail', { p90: formatMs(cell.timing.p90_ms), runs: cell.timing.runs })}>
      <span data-testid={testId} data-state="done" data-median={cell.timing.median_ms}>{formatMs(cell.timing.median_ms)}</span>
    </Tooltip>
  );
}

/**
 * The report as a table: the parent first, then each variant with its size (and how many times smaller),
 * parameters, FLOPs, latency on the worker and on the target, in this browser, and the metric against the parent.
 */
export function CompressionTable({
  report,
  parentId,
  names,
  browser,
}: {
  report: CompressionReport;
  parentId: number;
  names: Map<number, string>;
  browser: Map<number, BrowserCell>;
}) {
  const { t } = useTranslation('compression');
  const rows: Row[] = [
    { key: 'parent', label: names.get(parentId) ?? `#${parentId}`, modelVersion: parentId, summary: report.parent, isParent: true, notes: [] },
    ...report.variants.map((variant) => ({
      key: variant.name,
      label: variant.name,
      modelVersion: variant.model_version,
      summary: variant.summary,
      isParent: false,
      recipe: describeRecipe(variant.recipe),
      notes: variant.notes ?? [],
    })),
  ];
  const target = report.target ?? report.parent.latency.profile;
  return (
    <Table.ScrollContainer minWidth={980}>
      <Table striped highlightOnHover data-testid="compression-table" fz="sm" styles={{ td: { whiteSpace: 'nowrap' } }}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('table.variant')}</Table.Th>
            <Table.Th>{t('table.precision')}</Table.Th>
            <Table.Th ta="right">{t('table.size')}</Table.Th>
            <Table.Th ta="right">{t('table.smaller')}</Table.Th>
            <Table.Th ta="right">{t('table.parameters')}</Table.Th>
            <Table.Th ta="right">{t('table.flops')}</Table.Th>
            <Table.Th ta="right">{t('table.workerLatency')}</Table.Th>
            <Table.Th ta="right">{t('table.targetLatency', { target })}</Table.Th>
            <Table.Th ta="right">{t('table.browserLatency')}</Table.Th>
            <Table.Th ta="right">{t('table.metric', { metric: report.parent.metric })}</Table.Th>
            <Table.Th ta="right">{t('table.delta')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => {
            const ratio = timesSmaller(report.parent, row.summary);
            return (
              <Table.Tr key={row.key} data-testid={`compression-row-${row.key}`} data-model-version={row.modelVersion} fw={row.isParent ? 600 : undefined}>
                <Table.Td style={{ whiteSpace: 'normal' }} maw={320}>
                  <Anchor component={Link} to={`/model-versions/${row.modelVersion}`} size="sm" data-testid={`compression-link-${row.key}`}>
                    {row.label}
                  </Anchor>{' '}
                  {row.isParent ? (
                    <Badge size="xs" variant="light" color="gray">{t('table.parent')}</Badge>
                  ) : (
                    <Text size="xs" c="dimmed">
                      {names.get(row.modelVersion) ? `${names.get(row.modelVersion)} · ` : ''}
                      {row.recipe}
                    </Text>
                  )}
                  {row.notes.map((note) => (
                    <Text key={note} size="xs" c="dimmed" fs="italic">{note}</Text>
                  ))}
                </Table.Td>
                <Table.Td>
                  <Badge size="sm" variant="light" color={row.summary.precision === 'int8' ? 'grape' : 'blue'}>{row.summary.precision}</Badge>
                </Table.Td>
                <Table.Td ta="right" data-testid={`compression-size-${row.key}`} data-bytes={row.summary.size_bytes}>{formatBytes(row.summary.size_bytes)}</Table.Td>
                <Table.Td ta="right">{ratio === null ? '—' : `${formatNumber(ratio, { maximumFractionDigits: 1, minimumFractionDigits: 1 })}×`}</Table.Td>
                <Table.Td ta="right">{formatCount(row.summary.parameters)}</Table.Td>
                <Table.Td ta="right">{formatCount(row.summary.flops)}</Table.Td>
                <Table.Td ta="right">
                  <Tooltip label={t('table.latencyDetail', { p90: formatMs(row.summary.latency.p90_ms), runs: row.summary.latency.runs, threads: row.summary.latency.threads, machine: row.summary.latency.machine })}>
                    <span>{formatMs(row.summary.latency.median_ms)}</span>
                  </Tooltip>
                </Table.Td>
                <Table.Td ta="right">{formatMs(row.summary.latency.target_ms)}</Table.Td>
                <Table.Td ta="right">
                  <BrowserLatencyCell cell={browser.get(row.modelVersion)} testId={`compression-browser-${row.key}`} />
                </Table.Td>
                <Table.Td ta="right" data-testid={`compression-metric-${row.key}`}>{formatMetric(row.summary.metric, row.summary.value)}</Table.Td>
                <Table.Td ta="right" c={row.isParent ? undefined : row.summary.delta < 0 ? 'red' : 'teal'}>{row.isParent ? '—' : formatDelta(row.summary.metric, row.summary.delta)}</Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
