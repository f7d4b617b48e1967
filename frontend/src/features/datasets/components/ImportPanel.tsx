import { Alert, Button, Group, Paper, Progress, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@/lib/notifications';
import { formatBytes, formatNumber } from '@/lib/numbers';
import { EXPORT_FORMATS, exportUrl, IMPORT_FORMATS, isTableDataset, type ExportFormat, type ImportFormat } from '../api/datasets';
import { batchFiles, isArchive, uploadArchive, uploadImages, type ImportBatch } from '../api/imports';
import { datasetKeys } from '../api/keys';
import { useDataset } from '../hooks/useDatasets';
import { useImports } from '../hooks/useImports';
import { ImportBatchView, ImportReport } from './ImportReport';
import { TableImportPanel } from './TableImportPanel';

type Upload = { name: string; loaded: number; total: number };

/**
 * Drop images and archives: images upload in batches under the request limit, each archive
 * becomes a background import job whose progress and per-file problems are shown here.
 */
export function ImportPanel({ datasetId, disabled = false }: { datasetId: number; disabled?: boolean }) {
  const { data: dataset } = useDataset(datasetId);
  if (dataset && isTableDataset(dataset.task_type)) {
    return <TableImportPanel datasetId={datasetId} taskType={dataset.task_type} disabled={disabled} />;
  }
  return <ImageImportPanel datasetId={datasetId} disabled={disabled} detection={dataset?.task_type === 'object_detection'} />;
}

/** Images and archives; an object-detection dataset's archives carry annotations in a format picked here (or detected). */
function ImageImportPanel({ datasetId, disabled = false, detection = false }: { datasetId: number; disabled?: boolean; detection?: boolean }) {
  const { t } = useTranslation('datasets');
  const [format, setFormat] = useState<ImportFormat>('auto');
  const [exportFormat, setExportFormat] = useState<ExportFormat>('coco');
  const queryClient = useQueryClient();
  const inputRef = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [label, setLabel] = useState('');
  const [upload, setUpload] = useState<Upload | null>(null);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const [batchIds, setBatchIds] = useState<number[]>([]);
  const { data: recent } = useImports(datasetId);

  const busy = upload !== null;

  const start = async (files: File[]) => {
    if (busy || disabled || files.length === 0) return;
    setUploadError(null);
    const archives = files.filter(isArchive);
    const images = files.filter((file) => !isArchive(file));
    const total = files.reduce((sum, file) => sum + file.size, 0) || 1;
    let done = 0;
    const record = (batch: ImportBatch) => {
      queryClient.setQueryData(datasetKeys.importBatch(datasetId, batch.id), batch);
      setBatchIds((ids) => [batch.id, ...ids]);
    };
    try {
      for (const archive of archives) {
        setUpload({ name: archive.name, loaded: done, total });
        const batch = await uploadArchive(
          datasetId,
          archive,
          label,
          (progress) => setUpload({ name: archive.name, loaded: done + progress.loaded * (archive.size / (progress.total || 1)), total }),
          detection ? format : undefined,
        );
        done += archive.size;
        record(batch);
      }
      const batches = batchFiles(images);
      for (const [index, chunk] of batches.entries()) {
        const name =
          batches.length > 1
            ? t('import.imagesPart', { count: images.length, formatted: formatNumber(images.length), part: index + 1, parts: batches.length })
            : t('import.images', { count: images.length, formatted: formatNumber(images.length) });
        const bytes = chunk.reduce((sum, file) => sum + file.size, 0);
        setUpload({ name, loaded: done, total });
        const batch = await uploadImages(datasetId, chunk, label, (progress) =>
          setUpload({ name, loaded: done + progress.loaded * (bytes / (progress.total || 1)), total }),
        );
        done += bytes;
        record(batch);
      }
    } catch (error) {
      setUploadError(errorMessage(error));
    } finally {
      setUpload(null);
      void queryClient.invalidateQueries({ queryKey: datasetKeys.detail(datasetId) });
    }
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    void start(Array.from(event.dataTransfer.files));
  };

  const percent = upload ? Math.min(100, Math.round((1000 * upload.loaded) / upload.total) / 10) : 0;
  const shownIds = new Set(batchIds);
  const earlier = (recent?.results ?? []).filter((batch) => !shownIds.has(batch.id));

  return (
    <Stack>
      {detection ? (
        <Group justify="space-between" align="flex-end">
          <Select
            label={t('detection.import.format')}
            description={t('detection.import.formatHint')}
            data={IMPORT_FORMATS.map((value) => ({ value, label: t(`detection.import.formats.${value}`) }))}
            value={format}
            onChange={(value) => value && setFormat(value as ImportFormat)}
            allowDeselect={false}
            w={420}
            disabled={disabled || busy}
            data-testid="import-format"
          />
          <Group gap="xs" align="flex-end">
            <Select
              label={t('detection.import.exportFormat')}
              data={EXPORT_FORMATS.map((value) => ({ value, label: t(`detection.import.formats.${value}`) }))}
              value={exportFormat}
              onChange={(value) => value && setExportFormat(value as ExportFormat)}
              allowDeselect={false}
              w={160}
              data-testid="export-format"
            />
            <Button component="a" href={exportUrl(datasetId, null, exportFormat)} download variant="default" data-testid="import-export-download">
              {t('import.export')}
            </Button>
          </Group>
        </Group>
      ) : (
        <Group justify="space-between" align="flex-end">
          <TextInput
            label={t('import.labelInput')}
            description={t('import.labelHint')}
            placeholder={t('import.labelPlaceholder')}
            value={label}
            onChange={(event) => setLabel(event.currentTarget.value)}
            w={420}
            disabled={disabled || busy}
            data-testid="import-label-input"
          />
          <Button component="a" href={exportUrl(datasetId)} download variant="default" data-testid="import-export-download">
            {t('import.export')}
          </Button>
        </Group>
      )}
      <Paper
        withBorder
        p="xl"
        radius="md"
        data-testid="import-dropzone"
        data-over={over || undefined}
        onDragOver={(event) => {
          event.preventDefault();
          if (!disabled && !busy) setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        onClick={() => !disabled && !busy && inputRef.current?.click()}
        style={{
          borderStyle: 'dashed',
          borderWidth: 2,
          cursor: disabled || busy ? 'not-allowed' : 'pointer',
          background: over ? 'var(--mantine-color-blue-0)' : undefined,
          borderColor: over ? 'var(--mantine-color-blue-5)' : undefined,
        }}
      >
        <input
          ref={inputRef}
          type="file"
          multiple
          hidden
          accept="image/*,.zip,.tar,.tgz,.gz,.bz2,.xz"
          data-testid="import-file-input"
          onChange={(event) => {
            const files = Array.from(event.currentTarget.files ?? []);
            event.currentTarget.value = '';
            void start(files);
          }}
        />
        <Stack align="center" gap={4}>
          <Title order={4}>{disabled ? t('import.viewerTitle') : t('import.dropTitle')}</Title>
          <Text c="dimmed" size="sm" ta="center">
            {detection ? t('detection.import.dropFormats') : t('import.dropFormats')}
            <br />
            {t('import.dropClick')}
          </Text>
        </Stack>
      </Paper>
      {upload && (
        <Paper withBorder p="sm" data-testid="upload-progress-panel">
          <Text size="sm" mb={4}>
            {t('import.uploading', { name: upload.name, loaded: formatBytes(upload.loaded), total: formatBytes(upload.total) })}
          </Text>
          <Progress value={percent} striped animated aria-label={t('import.uploadAria', { percent })} data-testid="upload-progress" data-value={percent} />
        </Paper>
      )}
      {uploadError && (
        <Alert color="red" title={t('import.refused')} withCloseButton onClose={() => setUploadError(null)} data-testid="upload-error">
          {uploadError}
        </Alert>
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
