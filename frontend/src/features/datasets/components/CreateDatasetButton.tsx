import { Select } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CreateDialog, DescriptionInput, NameInput } from '@/components/CreateDialog';
import { TASK_TYPES, type Dataset, type TaskType } from '../api/datasets';
import { useCreateDataset } from '../hooks/useDatasets';

export function CreateDatasetButton({
  projectId,
  disabled = false,
  onCreated,
}: {
  projectId: number;
  disabled?: boolean;
  onCreated?: (dataset: Dataset) => void;
}) {
  const { t } = useTranslation('datasets');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [taskType, setTaskType] = useState<TaskType>('image_classification');
  const createMutation = useCreateDataset();

  return (
    <CreateDialog
      label={t('create.button')}
      title={t('create.title')}
      testId="create-dataset"
      submitTestId="dataset-create-submit"
      disabled={disabled}
      disabledReason={t('create.viewerReason')}
      mutation={createMutation}
      canSubmit={!!name.trim()}
      variables={() => ({ project: projectId, name: name.trim(), description: description.trim(), task_type: taskType })}
      // The task type stays as picked for the next dataset.
      onReset={() => {
        setName('');
        setDescription('');
      }}
      onCreated={onCreated}
    >
      <NameInput value={name} onChange={setName} testId="dataset-name-input" />
      <Select
        label={t('create.taskType')}
        data={TASK_TYPES.map((value) => ({ value, label: t(`taskTypes.${value}`) }))}
        value={taskType}
        onChange={(value) => value && setTaskType(value as TaskType)}
        allowDeselect={false}
        data-testid="dataset-task-type"
      />
      <DescriptionInput value={description} onChange={setDescription} testId="dataset-description-input" />
    </CreateDialog>
  );
}
