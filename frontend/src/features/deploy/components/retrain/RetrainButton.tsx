import { Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { CreateDialog } from '@/components/CreateDialog';
import { useDatasets, useVersions } from '@/features/datasets';
import { notifySuccess } from '@/lib/notifications';
import type { RetrainBody, RetrainJob } from './api';
import { useRetrain } from './useRetrain';

type Version = { id: number; name: string; project: number; dataset?: number | null; dataset_version?: number | null };

const PRESETS = ['fast', 'balanced', 'accurate'] as const;
const SAME = 'same' as const;

/**
 * "Retrain from this version": a training job on a dataset version of the project that starts from
 * the version's weights, with its template and parameters (or a preset's, keeping its network).
 * From a deployment (`deploymentId`), the version it serves. Opens the job's page once it starts
 * (unless `onStarted` says otherwise).
 */
export function RetrainButton({
  version,
  deploymentId,
  canEdit = true,
  onStarted,
}: {
  version: Version;
  deploymentId?: number;
  canEdit?: boolean;
  onStarted?: (job: RetrainJob) => void;
}) {
  const { t } = useTranslation('training');
  const navigate = useNavigate();
  const mutation = useRetrain(deploymentId === undefined ? { modelVersion: version.id } : { deployment: deploymentId });
  const initialDataset = version.dataset == null ? null : String(version.dataset);
  const [dataset, setDataset] = useState<string | null>(initialDataset);
  const [datasetVersion, setDatasetVersion] = useState<string | null>(null);
  const [preset, setPreset] = useState<string>(SAME);

  const variables = (): RetrainBody => ({
    dataset_version: Number(datasetVersion),
    ...(preset === SAME ? {} : { preset }),
  });

  return (
    <CreateDialog
      label={t('retrain.button')}
      title={t('retrain.title', { version: version.name })}
      testId="retrain"
      submitTestId="retrain-submit"
      submitLabel={t('retrain.start')}
      disabled={!canEdit}
      disabledReason={t('retrain.viewer')}
      mutation={mutation}
      canSubmit={datasetVersion !== null}
      cannotSubmitReason={t('retrain.pickVersionFirst')}
      variables={variables}
      intro={
        <Text size="sm" c="dimmed">
          {t('retrain.intro', { version: version.name })}
        </Text>
      }
      onReset={() => {
        setDataset(initialDataset);
        setDatasetVersion(null);
        setPreset(SAME);
      }}
      onCreated={(job) => {
        notifySuccess(t('retrain.started', { id: job.id, version: version.name }));
        if (onStarted) onStarted(job);
        else navigate(`/jobs/${job.id}`);
      }}
    >
      <RetrainFields
        projectId={version.project}
        dataset={dataset}
        datasetVersion={datasetVersion}
        preset={preset}
        onDataset={(value) => {
          setDataset(value);
          setDatasetVersion(null);
        }}
        onDatasetVersion={setDatasetVersion}
        onPreset={setPreset}
      />
    </CreateDialog>
  );
}

/** The dataset, version and preset pickers; rendered inside the dialog, so they load once it opens. */
function RetrainFields({
  projectId,
  dataset,
  datasetVersion,
  preset,
  onDataset,
  onDatasetVersion,
  onPreset,
}: {
  projectId: number;
  dataset: string | null;
  datasetVersion: string | null;
  preset: string;
  onDataset: (value: string | null) => void;
  onDatasetVersion: (value: string | null) => void;
  onPreset: (value: string) => void;
}) {
  const { t } = useTranslation('training');
  const { data: datasets } = useDatasets(projectId);
  const { data: versions } = useVersions(dataset === null ? Number.NaN : Number(dataset));
  return (
    <Stack gap="sm">
      <Select
        label={t('retrain.dataset')}
        placeholder={t('retrain.pickDataset')}
        data={(datasets?.results ?? []).map((item) => ({ value: String(item.id), label: item.name }))}
        value={dataset}
        onChange={onDataset}
        required
        data-testid="retrain-dataset"
      />
      <Select
        label={t('retrain.version')}
        placeholder={t('retrain.pickVersion')}
        description={t('retrain.versionHint')}
        data={(versions ?? []).map((item) => ({ value: String(item.id), label: item.name }))}
        value={datasetVersion}
        onChange={onDatasetVersion}
        disabled={dataset === null}
        required
        data-testid="retrain-version"
      />
      <Select
        label={t('retrain.preset')}
        description={t('retrain.presetHint')}
        data={[SAME, ...PRESETS].map((value) => ({ value, label: t(`retrain.presets.${value}`) }))}
        value={preset}
        onChange={(value) => onPreset(value ?? SAME)}
        allowDeselect={false}
        data-testid="retrain-preset"
      />
    </Stack>
  );
}
