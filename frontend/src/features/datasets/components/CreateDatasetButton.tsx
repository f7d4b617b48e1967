import { Alert, Button, Group, Modal, Select, Stack, TextInput, Textarea, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState, type FormEvent } from 'react';
import { errorDetailLines, errorMessage } from '@/lib/notifications';
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
  const [opened, { open, close }] = useDisclosure(false);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [taskType, setTaskType] = useState<TaskType>('image_classification');
  const createMutation = useCreateDataset();

  const reset = () => {
    setName('');
    setDescription('');
    createMutation.reset();
    close();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    createMutation.mutate(
      { project: projectId, name: name.trim(), description: description.trim(), task_type: taskType },
      {
        onSuccess: (dataset) => {
          reset();
          onCreated?.(dataset);
        },
      },
    );
  };

  return (
    <>
      <Tooltip label="Viewers cannot create datasets" disabled={!disabled}>
        <Button onClick={open} disabled={disabled} data-testid="create-dataset">
          New dataset
        </Button>
      </Tooltip>
      <Modal opened={opened} onClose={reset} title="Create a dataset">
        <form onSubmit={submit}>
          <Stack>
            {createMutation.isError && (
              <Alert color="red" variant="light" data-testid="create-dataset-error">
                {[errorMessage(createMutation.error), ...errorDetailLines(createMutation.error)].join(' ')}
              </Alert>
            )}
            <TextInput
              label="Name"
              required
              data-autofocus
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              data-testid="dataset-name-input"
            />
            <Select
              label="Task type"
              data={TASK_TYPES}
              value={taskType}
              onChange={(value) => value && setTaskType(value as TaskType)}
              allowDeselect={false}
              data-testid="dataset-task-type"
            />
            <Textarea
              label="Description"
              autosize
              minRows={2}
              value={description}
              onChange={(event) => setDescription(event.currentTarget.value)}
              data-testid="dataset-description-input"
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={reset}>
                Cancel
              </Button>
              <Button type="submit" loading={createMutation.isPending} disabled={!name.trim()} data-testid="dataset-create-submit">
                Create
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
