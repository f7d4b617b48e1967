import { Alert, Badge, Button, Group, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { errorMessage } from '@/lib/notifications';
import { exportUrl, type TaskType } from '../api/datasets';
import { isTableFile, previewTable, uploadTable, type ImportBatch, type TableMapping, type TablePreview } from '../api/imports';
import { datasetKeys } from '../api/keys';
import { useImports } from '../hooks/useImports';
import { ImportBatchView, ImportReport } from './ImportReport';

const NONE = '__none__';

/**
 * Table files for text and tabular datasets, in two steps: choose a file, whose columns, types
 * and first rows come back with a suggested mapping; then confirm the mapping (text and label
 * columns, or the target column) and import.
 */
export function TableImportPanel({ datasetId, taskType, disabled = false }: { datasetId: number; taskType: TaskType; disabled?: boolean }) {
  const queryClient = useQueryClient();
  const inputRef = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [encoding, setEncoding] = useState('');
  const [preview, setPreview] = useState<TablePreview | null>(null);
  const [mapping, setMapping] = useState<TableMapping>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [batchIds, setBatchIds] = useState<number[]>([]);
  const { data: recent } = useImports(datasetId);
  const text = taskType === 'text_classification';

  const choose = async (chosen: File | null) => {
    setError(null);
    setPreview(null);
    setFile(chosen);
    if (!chosen) return;
    if (!isTableFile(chosen)) {
      setError(`${chosen.name} is not a CSV, TSV, JSONL, XLSX or Parquet file.`);
      return;
    }
    setBusy(true);
    try {
      const found = await previewTable(datasetId, chosen, encoding);
      setPreview(found);
      const suggested = found.suggested as Record<string, string | null>;
      setMapping(
        text
          ? { text_column: suggested.text_column ?? '', label_column: suggested.label_column ?? '' }
          : { target_column: suggested.target_column ?? '' },
      );
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  const submit = async () => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const batch: ImportBatch = await uploadTable(datasetId, file, { ...mapping, encoding });
      queryClient.setQueryData(datasetKeys.importBatch(datasetId, batch.id), batch);
      setBatchIds((ids) => [batch.id, ...ids]);
      setPreview(null);
      setFile(null);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: datasetKeys.detail(datasetId) });
    }
  };

  const columns = preview?.columns ?? [];
  const options = columns.map((column) => ({ value: column.name, label: `${column.name} (${column.type})` }));
  const ready = text ? !!mapping.text_column : !!mapping.target_column;
  const shown = new Set(batchIds);
  const earlier = (recent?.results ?? []).filter((batch) => !shown.has(batch.id));

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <Group align="flex-end">
          <Button onClick={() => inputRef.current?.click()} disabled={disabled || busy} data-testid="table-choose">
            {disabled ? 'Viewers cannot import' : 'Choose a table file'}
          </Button>
          <TextInput
            label="Encoding (if not UTF-8)"
            placeholder="detected"
            value={encoding}
            onChange={(event) => setEncoding(event.currentTarget.value)}
            w={180}
            disabled={disabled || busy}
            data-testid="table-encoding"
          />
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
          Download export (zip with data.csv)
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        CSV, TSV, JSONL, XLSX or Parquet with a header row.{' '}
        {text ? 'Map the column with the texts and, optionally, the one with their labels.' : 'Choose the column the model will predict.'}
      </Text>
      {error && (
        <Alert color="red" title="Import refused" withCloseButton onClose={() => setError(null)} data-testid="table-error">
          {error}
        </Alert>
      )}
      {preview && (
        <Paper withBorder p="md" data-testid="table-mapping">
          <Stack>
            <Group justify="space-between">
              <Title order={5}>
                {preview.filename}: {preview.rows_read}
                {preview.partial ? '+' : ''} rows, {columns.length} columns
              </Title>
              <Badge variant="light">
                {preview.format} · {preview.encoding}
              </Badge>
            </Group>
            <Group>
              {text ? (
                <>
                  <Select
                    label="Text column"
                    data={options}
                    value={mapping.text_column || null}
                    onChange={(value) => setMapping({ ...mapping, text_column: value ?? '' })}
                    w={260}
                    data-testid="mapping-text-column"
                  />
                  <Select
                    label="Label column"
                    data={[{ value: NONE, label: 'none (label later)' }, ...options]}
                    value={mapping.label_column || NONE}
                    onChange={(value) => setMapping({ ...mapping, label_column: value === NONE ? '' : (value ?? '') })}
                    w={260}
                    data-testid="mapping-label-column"
                  />
                </>
              ) : (
                <Select
                  label="Target column"
                  data={options}
                  value={mapping.target_column || null}
                  onChange={(value) => setMapping({ ...mapping, target_column: value ?? '' })}
                  w={260}
                  data-testid="mapping-target-column"
                />
              )}
            </Group>
            <Table.ScrollContainer minWidth={400} mah={320}>
              <Table striped withTableBorder fz="xs" data-testid="table-preview">
                <Table.Thead>
                  <Table.Tr>
                    {columns.map((column) => (
                      <Table.Th key={column.name}>
                        {column.name} <Badge size="xs" variant="outline">{column.type}</Badge>
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
              <Button onClick={() => void submit()} loading={busy} disabled={!ready || disabled} data-testid="table-import">
                Import {preview.filename}
              </Button>
              <Button variant="default" onClick={() => void choose(null)} disabled={busy}>
                Cancel
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
          <Title order={5}>Earlier imports</Title>
          {earlier.slice(0, 5).map((batch) => (
            <ImportBatchView key={batch.id} batch={batch} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}
