import { Checkbox, FileInput, Group, NumberInput, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CreateDialog } from '@/components/CreateDialog';
import { useDatasets, useVersions } from '@/features/datasets';
import { notifySuccess } from '@/lib/notifications';
import { BATCH_FORMATS, type BatchCreate, type BatchFormat, type BatchPrediction, type BatchSourceKind, type BatchSplit } from './api';
import { useCreateBatchPrediction } from './useBatch';

type Version = { id: number; name: string; project: number; dataset?: number | null; dataset_version?: number | null; template?: string };

const SPLITS: BatchSplit[] = ['test', 'val', 'train', ''];
const TABLE_FILE = /\.(csv|jsonl|parquet)$/i;

/** The dataset and version pickers; rendered inside the dialog, so they load only once it is open. */
function DatasetFields({
  projectId,
  source,
  dataset,
  version,
  split,
  onDataset,
  onVersion,
  onSplit,
}: {
  projectId: number;
  source: BatchSourceKind;
  dataset: string | null;
  version: string | null;
  split: BatchSplit;
  onDataset: (value: string | null) => void;
  onVersion: (value: string | null) => void;
  onSplit: (value: BatchSplit) => void;
}) {
  const { t } = useTranslation('batch');
  const { data: datasets } = useDatasets(projectId);
  const { data: versions } = useVersions(dataset === null ? Number.NaN : Number(dataset));
  return (
    <>
      <Select
        label={t('dialog.dataset')}
        placeholder={t('dialog.pickDataset')}
        data={(datasets?.results ?? []).map((item) => ({ value: String(item.id), label: item.name }))}
        value={dataset}
        onChange={(value) => {
          onDataset(value);
          onVersion(null);
        }}
        required
        data-testid="batch-dataset"
      />
      {source === 'dataset_version' && (
        <>
          <Select
            label={t('dialog.version')}
            placeholder={t('dialog.pickVersion')}
            data={(versions ?? []).map((item) => ({ value: String(item.id), label: item.name }))}
            value={version}
            onChange={onVersion}
            disabled={dataset === null}
            required
            data-testid="batch-version"
          />
          <SegmentedControl
            value={split === '' ? 'all' : split}
            onChange={(value) => onSplit(value === 'all' ? '' : (value as BatchSplit))}
            data={SPLITS.map((item) => ({ value: item === '' ? 'all' : item, label: t(`splits.${item === '' ? 'all' : item}`) }))}
            data-testid="batch-split"
          />
        </>
      )}
    </>
  );
}

/**
 * "Batch predict": predict a dataset version (a split or all), a whole dataset or an uploaded file
 * (an archive of images or texts, a CSV/JSONL/Parquet table) with a model version, as a job.
 * From a deployment, `deploymentId` records it as started there (its primary version predicts).
 */
export function BatchPredictButton({
  version,
  deploymentId,
  canEdit = true,
  onStarted,
}: {
  version: Version;
  deploymentId?: number;
  canEdit?: boolean;
  onStarted?: (batch: BatchPrediction) => void;
}) {
  const { t } = useTranslation('batch');
  const create = useCreateBatchPrediction();
  const initialDataset = version.dataset == null ? null : String(version.dataset);
  const initialVersion = version.dataset_version == null ? null : String(version.dataset_version);
  const [source, setSource] = useState<BatchSourceKind>('dataset_version');
  const [dataset, setDataset] = useState<string | null>(initialDataset);
  const [datasetVersion, setDatasetVersion] = useState<string | null>(initialVersion);
  const [split, setSplit] = useState<BatchSplit>('test');
  const [file, setFile] = useState<File | null>(null);
  const [topK, setTopK] = useState<number | string>(5);
  const [formats, setFormats] = useState<BatchFormat[]>(['jsonl', 'csv']);
  const detection = version.template === 'object_detection';
  const regression = (version.template ?? '').includes('regression');

  const canSubmit =
    formats.length > 0 &&
    (source === 'dataset_version' ? datasetVersion !== null : source === 'dataset' ? dataset !== null : file !== null);

  const variables = (): BatchCreate => {
    const common = {
      model_version: version.id,
      ...(deploymentId === undefined ? {} : { deployment: deploymentId }),
      ...(detection || regression || typeof topK !== 'number' ? {} : { top_k: topK }),
      formats: BATCH_FORMATS.filter((format) => formats.includes(format)),
    };
    if (source === 'dataset_version') return { ...common, source, dataset_version: Number(datasetVersion), split };
    if (source === 'dataset') return { ...common, source, dataset: Number(dataset) };
    return { ...common, source, file: file as File };
  };

  return (
    <CreateDialog
      label={t('dialog.button')}
      title={t('dialog.title', { version: version.name })}
      testId="batch-predict"
      submitTestId="batch-predict-submit"
      submitLabel={t('dialog.start')}
      disabled={!canEdit}
      disabledReason={t('runs.viewer')}
      mutation={create}
      canSubmit={canSubmit}
      variables={variables}
      intro={
        <Text size="sm" c="dimmed">
          {t('dialog.intro')}
        </Text>
      }
      onReset={() => {
        setSource('dataset_version');
        setDataset(initialDataset);
        setDatasetVersion(initialVersion);
        setSplit('test');
        setFile(null);
        setTopK(5);
        setFormats(['jsonl', 'csv']);
      }}
      onCreated={(batch) => {
        notifySuccess(t('dialog.started', { id: batch.id, version: batch.model_version_name }));
        onStarted?.(batch);
      }}
    >
      <Stack gap="sm">
        <SegmentedControl
          value={source}
          onChange={(value) => setSource(value as BatchSourceKind)}
          data={(['dataset_version', 'dataset', 'upload'] as const).map((kind) => ({ value: kind, label: t(`sources.${kind}`) }))}
          data-testid="batch-source"
        />
        {source === 'upload' ? (
          <FileInput
            label={t('dialog.file')}
            description={t('dialog.fileHint')}
            placeholder={t('dialog.pickFile')}
            value={file}
            onChange={(picked) => {
              setFile(picked);
              // a table's results are a table too: Parquet by default (the server's default as well)
              if (picked && TABLE_FILE.test(picked.name)) setFormats((current) => [...new Set([...current, 'parquet' as const])]);
            }}
            accept=".zip,.tar,.tar.gz,.tgz,.csv,.jsonl,.parquet"
            required
            data-testid="batch-file"
          />
        ) : (
          <DatasetFields
            projectId={version.project}
            source={source}
            dataset={dataset}
            version={datasetVersion}
            split={split}
            onDataset={setDataset}
            onVersion={setDatasetVersion}
            onSplit={setSplit}
          />
        )}
        {!detection && !regression && (
          <NumberInput label={t('dialog.topK')} min={1} max={20} value={topK} onChange={setTopK} data-testid="batch-top-k" />
        )}
        <Checkbox.Group label={t('dialog.formats')} value={formats} onChange={(value) => setFormats(value as BatchFormat[])}>
          <Group mt={4}>
            {BATCH_FORMATS.map((format) => (
              <Checkbox key={format} value={format} label={t(`formats.${format}`)} data-testid={`batch-format-${format}`} />
            ))}
          </Group>
        </Checkbox.Group>
      </Stack>
    </CreateDialog>
  );
}
