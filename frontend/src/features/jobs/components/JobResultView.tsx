import { Code, Paper, Spoiler, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { translateDynamic } from '@/i18n';

type Scalar = string | number | boolean | null;

function isScalar(value: unknown): value is Scalar {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

function formatScalar(value: Scalar): string {
  if (value === null) return '—';
  if (typeof value === 'number' && !Number.isInteger(value)) return value.toPrecision(6).replace(/\.?0+$/, '');
  return String(value);
}

/** A result key as a heading: the catalog's name for a known section, else the key made readable. */
function humanize(key: string): string {
  const spaced = key.replace(/[_.-]+/g, ' ');
  return translateDynamic(`jobs:result.sections.${key.replace(/\./g, '_')}`, spaced.charAt(0).toUpperCase() + spaced.slice(1));
}

function Json({ value }: { value: unknown }) {
  return (
    <Code block fz="xs">
      {JSON.stringify(value, null, 2)}
    </Code>
  );
}

/** A record as a two-column table; nested values stay JSON. */
function KeyValueTable({ record }: { record: Record<string, unknown> }) {
  return (
    <Table withRowBorders={false} verticalSpacing={4} fz="sm">
      <Table.Tbody>
        {Object.entries(record).map(([key, value]) => (
          <Table.Tr key={key}>
            <Table.Td w="35%" c="dimmed" style={{ verticalAlign: 'top' }}>
              {key}
            </Table.Td>
            <Table.Td style={{ wordBreak: 'break-word' }}>{isScalar(value) ? formatScalar(value) : <Json value={value} />}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** An array of records as a table with the union of their keys as columns. */
function RecordsTable({ rows }: { rows: Record<string, unknown>[] }) {
  const columns = Array.from(new Set(rows.flatMap((row) => Object.keys(row))));
  return (
    <Table.ScrollContainer minWidth={400}>
      <Table fz="sm" verticalSpacing={4} withTableBorder>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => (
              <Table.Th key={column}>{column}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row, index) => (
            <Table.Tr key={index}>
              {columns.map((column) => {
                const value = row[column];
                return <Table.Td key={column}>{isScalar(value) ? formatScalar(value) : value === undefined ? '' : JSON.stringify(value)}</Table.Td>;
              })}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function Section({ name, value }: { name: string; value: unknown }) {
  let body;
  if (isScalar(value)) body = <Text size="sm">{formatScalar(value)}</Text>;
  else if (Array.isArray(value) && value.length > 0 && value.every(isRecord)) body = <RecordsTable rows={value} />;
  else if (isRecord(value) && Object.keys(value).length > 0) {
    // Devices are often {cpu: {...}, cuda: [...]}: one level of nesting reads better as sub-sections.
    const nested = Object.values(value).some((item) => isRecord(item) || (Array.isArray(item) && item.some(isRecord)));
    body = nested ? (
      <Stack gap="xs">
        {Object.entries(value).map(([key, item]) => (
          <Stack key={key} gap={2}>
            <Text size="sm" fw={500}>
              {humanize(key)}
            </Text>
            {isRecord(item) ? <KeyValueTable record={item} /> : Array.isArray(item) && item.every(isRecord) && item.length > 0 ? <RecordsTable rows={item} /> : <Json value={item} />}
          </Stack>
        ))}
      </Stack>
    ) : (
      <KeyValueTable record={value} />
    );
  } else body = <Json value={value} />;
  return (
    <Paper withBorder p="sm" data-testid={`job-result-${name}`}>
      <Title order={5} mb="xs">
        {humanize(name)}
      </Title>
      {body}
    </Paper>
  );
}

// the contract's envelope (which result it is), not a section of it
const ENVELOPE = new Set(['kind', 'version']);

/** A job's result: one section per top-level key (for system.check: versions, devices, computation), then the raw JSON. */
export function JobResultView({ result }: { result: unknown }) {
  const { t } = useTranslation('jobs');
  if (result === null || result === undefined) {
    return (
      <Text size="sm" c="dimmed">
        {t('result.none')}
      </Text>
    );
  }
  return (
    <Stack gap="sm" data-testid="job-result">
      {isRecord(result) ? Object.entries(result)
          .filter(([key]) => !ENVELOPE.has(key))
          .map(([key, value]) => <Section key={key} name={key} value={value} />) : <Json value={result} />}
      <Spoiler maxHeight={0} showLabel={t('result.showRaw')} hideLabel={t('result.hideRaw')}>
        <Json value={result} />
      </Spoiler>
    </Stack>
  );
}
