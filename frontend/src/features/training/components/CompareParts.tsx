import { Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatNumber as formatLocalNumber } from '@/lib/numbers';

/** A delta in percentage points ("+10.0 pt"), green when B is better; a dash when there is none (null, NaN). */
export function PointsDelta({ value, testId }: { value: number | null; testId?: string }) {
  const { t } = useTranslation('training');
  if (value === null || !Number.isFinite(value)) {
    return (
      <Text size="sm" data-testid={testId}>
        —
      </Text>
    );
  }
  const points = value * 100;
  const color = Math.abs(points) < 0.05 ? 'dimmed' : points > 0 ? 'teal' : 'red';
  return (
    <Text size="sm" c={color} fw={600} data-testid={testId} data-value={value} style={{ whiteSpace: 'nowrap' }}>
      {t('compare.points', { value: formatLocalNumber(points, { minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: 'exceptZero' }) })}
    </Text>
  );
}

/** The head of an overall comparison table: metric, A's name, B's name, Δ. */
export function OverallHead({ aName, bName }: { aName: string; bName: string }) {
  const { t } = useTranslation('training');
  return (
    <Table.Thead>
      <Table.Tr>
        <Table.Th>{t('compare.metric')}</Table.Th>
        <Table.Th>{aName}</Table.Th>
        <Table.Th>{bName}</Table.Th>
        <Table.Th>Δ</Table.Th>
      </Table.Tr>
    </Table.Thead>
  );
}
