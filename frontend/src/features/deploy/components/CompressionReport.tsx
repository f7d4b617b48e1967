import { BarChart } from '@mantine/charts';
import { Badge, Group, Paper, SimpleGrid, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatNumber, formatPercent } from '@/lib/numbers';
import { formatBytes, type CompressionReport as Report } from '../api/packages';

/**
 * fp32 vs int8: size and test accuracy side by side, and how often their top-1 answers agree; for a
 * detector, each model's mAP@.5, the drop, and the share of fp32's boxes int8 finds too.
 */
export function CompressionReport({ packageId, report }: { packageId: number; report: Report }) {
  const { t } = useTranslation('deploy');
  const percent = (value: number | null) => formatPercent(value, 1);
  const ratio = report.fp32.size_bytes && report.int8.size_bytes ? report.fp32.size_bytes / report.int8.size_bytes : null;
  const rows = [
    { model: 'fp32', size: (report.fp32.size_bytes ?? 0) / 1024 },
    { model: 'int8', size: (report.int8.size_bytes ?? 0) / 1024 },
  ];
  return (
    <Paper withBorder p="sm" data-testid={`compression-report-${packageId}`}>
      <Group justify="space-between" mb="xs">
        <Text fw={600} size="sm">
          {t('compression.title')}
        </Text>
        <Group gap="xs">
          {ratio !== null && (
            <Badge variant="light" data-testid={`compression-ratio-${packageId}`}>
              {t('compression.smaller', { ratio: formatNumber(ratio, { maximumFractionDigits: 1, minimumFractionDigits: 1 }) })}
            </Badge>
          )}
          {report.detection && (
            <Badge variant="light" color={report.detection.map50Drop !== null && report.detection.map50Drop <= 0.02 ? 'teal' : 'yellow'} data-testid={`compression-map-drop-${packageId}`}>
              {t('compression.mapDrop', { value: percent(report.detection.map50Drop) })}
            </Badge>
          )}
          <Badge variant="light" color={report.agreement !== null && report.agreement >= 0.98 ? 'teal' : 'yellow'} data-testid={`compression-agreement-${packageId}`}>
            {report.detection ? t('compression.boxAgreement', { value: percent(report.agreement) }) : t('compression.agreement', { value: percent(report.agreement) })}
          </Badge>
        </Group>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Table withTableBorder={false} verticalSpacing={4} fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th />
              <Table.Th>{t('compression.size')}</Table.Th>
              <Table.Th>{report.detection ? t('compression.map50') : t('compression.accuracy')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(['fp32', 'int8'] as const).map((name) => (
              <Table.Tr key={name} data-testid={`compression-${name}-${packageId}`}>
                <Table.Td fw={600}>{name}</Table.Td>
                <Table.Td>{formatBytes(report[name].size_bytes)}</Table.Td>
                <Table.Td>{percent(report.detection ? report[name].map50 : report[name].accuracy)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
          {report.samples !== null && (
            <Table.Caption>
              {report.detection ? t('compression.samplesMap', { count: report.samples }) : t('compression.samples', { count: report.samples })}
              {report.calibrationImages !== null ? t('compression.calibrated', { count: report.calibrationImages }) : ''}
            </Table.Caption>
          )}
        </Table>
        <BarChart h={110} data={rows} dataKey="model" orientation="vertical" yAxisProps={{ width: 40 }} series={[{ name: 'size', label: t('compression.sizeKib'), color: 'blue.6' }]} />
      </SimpleGrid>
    </Paper>
  );
}
