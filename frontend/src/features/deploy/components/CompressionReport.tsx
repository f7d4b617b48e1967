import { BarChart } from '@mantine/charts';
import { Badge, Group, Paper, SimpleGrid, Table, Text } from '@mantine/core';
import { formatBytes, type CompressionReport as Report } from '../api/packages';

function percent(value: number | null): string {
  return value === null ? '—' : `${(value * 100).toFixed(1)}%`;
}

/** fp32 vs int8: size and test accuracy side by side, and how often their top-1 answers agree. */
export function CompressionReport({ packageId, report }: { packageId: number; report: Report }) {
  const ratio = report.fp32.size_bytes && report.int8.size_bytes ? report.fp32.size_bytes / report.int8.size_bytes : null;
  const rows = [
    { model: 'fp32', 'size (KiB)': (report.fp32.size_bytes ?? 0) / 1024 },
    { model: 'int8', 'size (KiB)': (report.int8.size_bytes ?? 0) / 1024 },
  ];
  return (
    <Paper withBorder p="sm" data-testid={`compression-report-${packageId}`}>
      <Group justify="space-between" mb="xs">
        <Text fw={600} size="sm">
          Compression report
        </Text>
        <Group gap="xs">
          {ratio !== null && (
            <Badge variant="light" data-testid={`compression-ratio-${packageId}`}>
              {ratio.toFixed(1)}× smaller
            </Badge>
          )}
          <Badge variant="light" color={report.agreement !== null && report.agreement >= 0.98 ? 'teal' : 'yellow'} data-testid={`compression-agreement-${packageId}`}>
            top-1 agreement {percent(report.agreement)}
          </Badge>
        </Group>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Table withTableBorder={false} verticalSpacing={4} fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th />
              <Table.Th>Size</Table.Th>
              <Table.Th>Test accuracy</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(['fp32', 'int8'] as const).map((name) => (
              <Table.Tr key={name} data-testid={`compression-${name}-${packageId}`}>
                <Table.Td fw={600}>{name}</Table.Td>
                <Table.Td>{formatBytes(report[name].size_bytes)}</Table.Td>
                <Table.Td>{percent(report[name].accuracy)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
          {report.samples !== null && (
            <Table.Caption>
              accuracy on {report.samples} test images
              {report.calibrationImages !== null ? `; int8 calibrated on ${report.calibrationImages} training images` : ''}
            </Table.Caption>
          )}
        </Table>
        <BarChart h={110} data={rows} dataKey="model" orientation="vertical" yAxisProps={{ width: 40 }} series={[{ name: 'size (KiB)', color: 'blue.6' }]} />
      </SimpleGrid>
    </Paper>
  );
}
