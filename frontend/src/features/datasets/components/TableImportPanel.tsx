import { Alert, Badge, Button, Group, Paper, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { translateDynamic } from '@/i18n';
import { errorMessage } from '@/lib/notifications';
import { formatNumber } from '@/lib/numbers';
import { exportUrl, isForecastingDataset, type TaskType } from '../api/datasets';
import {
  encodingCandidates,
  isTableFile,
  previewTable,
  uploadTable,
  type ImportBatch,
  type TableMapping,
  type TablePreview,
  type TableReading,
} from '../api/imports';
import { datasetKeys } from '../api/keys';
import type { TimeSeriesMapping } from '../api/timeSeries';
import { useImports } from '../hooks/useImports';
import { ImportBatchView, ImportReport } from './ImportReport';
import { TimeSeriesMappingForm } from './TimeSeriesMappingForm';
import { suggestedTimeSeriesMapping, timeSeriesMappingProblem } from './timeSeriesView';

const NONE = '__none__';
const DETECT = '__detect__';
const ENCODINGS = ['utf-8', 'utf-16', 'gb18030', 'big5', 'shift_jis', 'euc-kr', 'cp1252', 'latin-1', 'cp1251', 'cp1250'];
const DELIMITERS = [
  { value: ',', key: 'comma' },
  { value: ';', key: 'semicolon' },
  { value: '\t', key: 'tab' },
  { value: '|', key: 'pipe' },
] as const;
const DECIMALS = [
  { value: '.', key: 'point' },
  { value: ',', key: 'comma' },
] as const;

function delimiterOptions(t: TFunction<'datasets'>) {
  return DELIMITERS.map((option) => ({ value: option.value, label: t(`table.delimiters.${option.key}`) }));
}

function decimalOptions(t: TFunction<'datasets'>) {
  return DECIMALS.map((option) => ({ value: option.value, label: t(`table.decimals.${option.key}`) }));
}

function describeDelimiter(delimiter: string | null | undefined, t: TFunction<'datasets'>): string {
  return delimiterOptions(t).find((option) => option.value === delimiter)?.label ?? (delimiter ? `'${delimiter}'` : '');
}

/** A reading option's select: "detected" (sent as nothing) or a choice; the placeholder shows what the server used. */
function ReadingSelect({
  label, value, detected, data, onChange, disabled, testId,
}: {
  label: string;
  value: string | undefined;
  detected: string;
  data: { value: string; label: string }[];
  onChange: (value: string) => void;
  disabled: boolean;
  testId: string;
}) {
  const { t } = useTranslation('datasets');
  return (
    <Select
      label={label}
      data={[{ value: DETECT, label: detected ? t('table.detectedAs', { value: detected }) : t('table.detected') }, ...data]}
      value={value ? value : DETECT}
      onChange={(chosen) => onChange(!chosen || chosen === DETECT ? '' : chosen)}
      allowDeselect={false}
      w={190}
      disabled={disabled}
      data-testid={testId}
    />
  );
}

/**
 * Table files for text and tabular datasets, in two steps: choose a file, whose columns, types
 * and first rows come back with a suggested mapping; then confirm the mapping (text and label
 * columns, or the target column) and import. How the file is read (encoding, delimiter, decimal
 * mark, XLSX sheet) is detected by the server and shown; changing one re-runs the preview, and an
 * encoding the server is not sure of is offered as the candidates it names. A forecasting dataset maps
 * the timestamp, series-id, target and covariate columns, the frequency and the fill rule instead.
 */
export function TableImportPanel({ datasetId, taskType, disabled = false }: { datasetId: number; taskType: TaskType; disabled?: boolean }) {
  const { t } = useTranslation(['datasets', 'common']);
  const queryClient = useQueryClient();
  const inputRef = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [reading, setReading] = useState<TableReading>({});
  const [candidates, setCandidates] = useState<string[]>([]);
  // The last preview of this file: its reading options stay offered when a changed one is refused.
  const [lastRead, setLastRead] = useState<TablePreview | null>(null);
  const [preview, setPreview] = useState<TablePreview | null>(null);
  const [mapping, setMapping] = useState<TableMapping>({});
  const [seriesMapping, setSeriesMapping] = useState<TimeSeriesMapping>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [batchIds, setBatchIds] = useState<number[]>([]);
  const { data: recent } = useImports(datasetId);
  const text = taskType === 'text_classification';
  const forecasting = isForecastingDataset(taskType);

  const runPreview = async (chosen: File, options: TableReading) => {
    setBusy(true);
    setError(null);
    setCandidates([]);
    try {
      const found = await previewTable(datasetId, chosen, options);
      setPreview(found);
      setLastRead(found);
      const suggested = found.suggested as Record<string, string | null>;
      if (forecasting) setSeriesMapping((current) => suggestedTimeSeriesMapping(found.columns, found.suggested as Record<string, unknown>, current));
      setMapping((current) => {
        const keep = (name: string | undefined) => (name && found.columns.some((column) => column.name === name) ? name : '');
        return text
          ? {
              text_column: keep(current.text_column) || (suggested.text_column ?? ''),
              label_column: keep(current.label_column) || (suggested.label_column ?? ''),
            }
          : { target_column: keep(current.target_column) || (suggested.target_column ?? '') };
      });
    } catch (failure) {
      setPreview(null);
      setError(errorMessage(failure));
      setCandidates(encodingCandidates(failure));
    } finally {
      setBusy(false);
    }
  };

  const choose = async (chosen: File | null) => {
    setError(null);
    setCandidates([]);
    setPreview(null);
    setLastRead(null);
    setMapping({});
    setSeriesMapping({});
    setReading({});
    setFile(chosen);
    if (!chosen) return;
    if (!isTableFile(chosen)) {
      setError(t('table.notATable', { name: chosen.name }));
      return;
    }
    await runPreview(chosen, {});
  };

  const reread = (change: TableReading) => {
    const next = { ...reading, ...change };
    setReading(next);
    if (file) void runPreview(file, next);
  };

  const submit = async () => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const batch: ImportBatch = await uploadTable(datasetId, file, { ...(forecasting ? seriesMapping : mapping), ...reading });
      queryClient.setQueryData(datasetKeys.importBatch(datasetId, batch.id), batch);
      setBatchIds((ids) => [batch.id, ...ids]);
      setPreview(null);
      setFile(null);
      setReading({});
    } catch (failure) {
      setError(errorMessage(failure));
      setCandidates(encodingCandidates(failure));
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: datasetKeys.detail(datasetId) });
    }
  };

  const columns = preview?.columns ?? [];
  const typeName = (type: string) => translateDynamic(`datasets:profile.types.${type}`, type);
  const options = columns.map((column) => ({ value: column.name, label: t('table.columnOption', { name: column.name, type: typeName(column.type) }) }));
  const seriesProblem = forecasting ? timeSeriesMappingProblem(seriesMapping) : null;
  const ready = forecasting ? !seriesProblem : text ? !!mapping.text_column : !!mapping.target_column;
  const notReadyReason = forecasting
    ? seriesProblem && t(`timeSeries.${seriesProblem}`)
    : text
      ? t('table.pickText')
      : t('table.pickTarget');
  const inferred = (preview?.suggested as { frequency_inferred?: unknown } | undefined)?.frequency_inferred;
  const shown = new Set(batchIds);
  const earlier = (recent?.results ?? []).filter((batch) => !shown.has(batch.id));

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <Group align="flex-end">
          <WithReason reason={disabled ? t('common:permissions.viewerReadOnly') : busy ? t('table.busy') : null}>
            <Button onClick={() => inputRef.current?.click()} disabled={disabled || busy} data-testid="table-choose">
              {disabled ? t('import.viewerTitle') : t('table.choose')}
            </Button>
          </WithReason>
          <input
            ref={inputRef}
            type="file"
            hidden
            accept=".csv,.tsv,.tab,.txt,.jsonl,.ndjson,.xlsx,.xlsm,.parquet,.pq"
            data-testid="table-file-input"
            onChange={(event) => {
              const chosen = event.currentTarget.files?.[0] ?? null;
              event.currentTarget.value = '';
              void choose(chosen);
            }}
          />
        </Group>
        <Button component="a" href={exportUrl(datasetId)} download variant="default" data-testid="import-export-download">
          {t('table.export')}
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        {t('table.formats')} {forecasting ? t('timeSeries.mapHint') : text ? t('table.mapText') : t('table.mapTarget')}
      </Text>
      {error && (
        <Alert color="red" title={t('table.refused')} withCloseButton onClose={() => setError(null)} data-testid="table-error">
          <Stack gap="xs">
            <Text size="sm">{error}</Text>
            {file && candidates.length > 0 && (
              <Group gap="xs" data-testid="table-encoding-candidates">
                <Text size="sm">{t('table.readAs')}</Text>
                {candidates.map((candidate) => (
                  <Button key={candidate} size="compact-sm" variant="light" disabled={busy}
                    onClick={() => reread({ encoding: candidate })} data-testid={`table-encoding-${candidate}`}>
                    {candidate}
                  </Button>
                ))}
              </Group>
            )}
          </Stack>
        </Alert>
      )}
      {file && isTableFile(file) && (lastRead || candidates.length > 0) && (
        <Group align="flex-end" data-testid="table-reading">
          {lastRead?.format !== 'xlsx' && lastRead?.format !== 'parquet' && (
            <ReadingSelect label={t('table.encoding')} value={reading.encoding} detected={lastRead?.encoding ?? ''}
              data={[...new Set([...candidates, ...ENCODINGS, ...(reading.encoding ? [reading.encoding] : [])])].map(
                (name) => ({ value: name, label: name }))}
              onChange={(encoding) => reread({ encoding })} disabled={disabled || busy} testId="table-encoding" />
          )}
          {lastRead && (lastRead.format === 'csv' || lastRead.format === 'tsv') && (
            <ReadingSelect label={t('table.delimiter')} value={reading.delimiter} detected={describeDelimiter(lastRead.delimiter, t)}
              data={delimiterOptions(t)} onChange={(delimiter) => reread({ delimiter })} disabled={disabled || busy}
              testId="table-delimiter" />
          )}
          {lastRead && lastRead.format !== 'parquet' && (
            <ReadingSelect label={t('table.decimal')} value={reading.decimal}
              detected={decimalOptions(t).find((option) => option.value === lastRead.decimal)?.label ?? ''} data={decimalOptions(t)}
              onChange={(decimal) => reread({ decimal })} disabled={disabled || busy} testId="table-decimal" />
          )}
          {lastRead && lastRead.sheets.length > 0 && (
            <ReadingSelect label={t('table.sheet')} value={reading.sheet} detected={lastRead.sheet ?? ''}
              data={lastRead.sheets.map((name) => ({ value: name, label: name }))}
              onChange={(sheet) => reread({ sheet })} disabled={disabled || busy} testId="table-sheet" />
          )}
        </Group>
      )}
      {preview && (
        <Paper withBorder p="md" data-testid="table-mapping">
          <Stack>
            <Group justify="space-between">
              <Title order={5}>
                {t('table.previewTitle', {
                  name: preview.filename,
                  rows: `${formatNumber(preview.rows_read)}${preview.partial ? '+' : ''}`,
                  columns: formatNumber(columns.length),
                })}
              </Title>
              <Badge variant="light" data-testid="table-read-as">
                {[
                  preview.format,
                  preview.encoding,
                  preview.sheet ? t('table.readSheet', { name: preview.sheet }) : '',
                  preview.delimiter ? t('table.readDelimiter', { value: describeDelimiter(preview.delimiter, t) }) : '',
                  preview.decimal === ',' ? t('table.readDecimalComma') : '',
                ].filter(Boolean).join(' · ')}
              </Badge>
            </Group>
            {forecasting ? (
              <TimeSeriesMappingForm
                options={options}
                mapping={seriesMapping}
                inferred={typeof inferred === 'string' ? inferred : null}
                onChange={setSeriesMapping}
                disabled={busy}
              />
            ) : (
              <Group>
                {text ? (
                  <>
                    <Select
                      label={t('table.textColumn')}
                      data={options}
                      value={mapping.text_column || null}
                      onChange={(value) => setMapping({ ...mapping, text_column: value ?? '' })}
                      w={260}
                      data-testid="mapping-text-column"
                    />
                    <Select
                      label={t('table.labelColumn')}
                      data={[{ value: NONE, label: t('table.labelLater') }, ...options]}
                      value={mapping.label_column || NONE}
                      onChange={(value) => setMapping({ ...mapping, label_column: value === NONE ? '' : (value ?? '') })}
                      w={260}
                      data-testid="mapping-label-column"
                    />
                  </>
                ) : (
                  <Select
                    label={t('table.targetColumn')}
                    data={options}
                    value={mapping.target_column || null}
                    onChange={(value) => setMapping({ ...mapping, target_column: value ?? '' })}
                    w={260}
                    data-testid="mapping-target-column"
                  />
                )}
              </Group>
            )}
            <Table.ScrollContainer minWidth={400} mah={320}>
              <Table striped withTableBorder fz="xs" data-testid="table-preview">
                <Table.Thead>
                  <Table.Tr>
                    {columns.map((column) => (
                      <Table.Th key={column.name}>
                        {column.name} <Badge size="xs" variant="outline">{typeName(column.type)}</Badge>
                      </Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {preview.rows.map((row, index) => (
                    <Table.Tr key={index}>
                      {columns.map((column) => {
                        const value = (row as Record<string, unknown>)[column.name];
                        return <Table.Td key={column.name}>{value === null || value === undefined ? '—' : String(value).slice(0, 120)}</Table.Td>;
                      })}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <Group>
              <WithReason reason={disabled ? t('common:permissions.viewerReadOnly') : !ready ? notReadyReason : null}>
                <Button onClick={() => void submit()} loading={busy} disabled={!ready || disabled} data-testid="table-import">
                  {t('table.import', { name: preview.filename })}
                </Button>
              </WithReason>
              <Button variant="default" onClick={() => void choose(null)} disabled={busy}>
                {t('common:actions.cancel')}
              </Button>
            </Group>
          </Stack>
        </Paper>
      )}
      {batchIds.map((id) => (
        <ImportReport key={id} datasetId={datasetId} batchId={id} />
      ))}
      {earlier.length > 0 && (
        <Stack gap="xs">
          <Title order={5}>{t('import.earlier')}</Title>
          {earlier.slice(0, 5).map((batch) => (
            <ImportBatchView key={batch.id} batch={batch} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}
