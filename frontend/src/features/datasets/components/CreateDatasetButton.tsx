import { Select } from '@mantine/core';
import { useState } from 'react';
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
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [taskType, setTaskType] = useState<TaskType>('image_classification');
  const createMutation = useCreateDataset();

  return (
    <CreateDialog
      label="New dataset"
      title="Create a dataset"
      testId="create-dataset"
      submitTestId="dataset-create-submit"
      disabled={disabled}
      disabledReason="Viewers cannot create datasets"
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
        label="Task type"
        data={TASK_TYPES}
        value={taskType}
        onChange={(value) => value && setTaskType(value as TaskType)}
        allowDeselect={false}
        data-testid="dataset-task-type"
      />
      <DescriptionInput value={description} onChange={setDescription} testId="dataset-description-input" />
    </CreateDialog>
  );
}
