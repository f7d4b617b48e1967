import { Group, Select } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useDatasets, useVersions } from '@/features/datasets';

/** A dataset of the project, then one of its versions; none: the code runs without data. */
export function DatasetVersionPicker({
  projectId,
  value,
  onChange,
  disabled,
}: {
  projectId: number;
  value: number | null;
  onChange: (versionId: number | null) => void;
  disabled?: boolean;
}) {
  const { t } = useTranslation('customJobs');
  const { data: datasets } = useDatasets(projectId);
  const [datasetId, setDatasetId] = useState<number | null>(null);
  const { data: versions } = useVersions(datasetId ?? Number.NaN);

  // a new dataset's newest version is the likely choice
  useEffect(() => {
    if (datasetId !== null && versions && !versions.some((version) => version.id === value)) onChange(versions[0]?.id ?? null);
  }, [datasetId, versions, value, onChange]);

  return (
    <Group grow align="flex-start">
      <Select
        label={t('run.dataset')}
        description={t('run.datasetHint')}
        placeholder={t('run.noDataset')}
        data={(datasets?.results ?? []).map((dataset) => ({ value: String(dataset.id), label: dataset.name }))}
        value={datasetId === null ? null : String(datasetId)}
        onChange={(next) => {
          setDatasetId(next === null ? null : Number(next));
          if (next === null) onChange(null);
        }}
        clearable
        disabled={disabled}
        data-testid="run-dataset"
      />
      <Select
        label={t('run.datasetVersion')}
        data={(versions ?? []).map((version) => ({ value: String(version.id), label: version.name || t('run.versionNumber', { number: version.number }) }))}
        value={value === null ? null : String(value)}
        onChange={(next) => onChange(next === null ? null : Number(next))}
        disabled={disabled || datasetId === null}
        allowDeselect={false}
        data-testid="run-dataset-version"
      />
    </Group>
  );
}
