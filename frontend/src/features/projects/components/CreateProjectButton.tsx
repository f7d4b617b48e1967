import { Alert, Button, Group, Modal, Stack, TextInput, Textarea, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState, type FormEvent } from 'react';
import { errorDetailLines, errorMessage } from '@/lib/notifications';
import type { Project } from '../api/projects';
import { useCreateProject } from '../hooks/useProjects';

export function CreateProjectButton({
  workspaceId,
  disabled = false,
  onCreated,
}: {
  workspaceId: number;
  disabled?: boolean;
  onCreated?: (project: Project) => void;
}) {
  const [opened, { open, close }] = useDisclosure(false);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const createMutation = useCreateProject();

  const reset = () => {
    setName('');
    setDescription('');
    createMutation.reset();
    close();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    createMutation.mutate(
      { workspace: workspaceId, name: name.trim(), description: description.trim() },
      {
        onSuccess: (project) => {
          reset();
          onCreated?.(project);
        },
      },
    );
  };

  return (
    <>
      <Tooltip label="Viewers cannot create projects" disabled={!disabled}>
        <Button onClick={open} disabled={disabled} data-testid="create-project">
          New project
        </Button>
      </Tooltip>
      <Modal opened={opened} onClose={reset} title="Create a project">
        <form onSubmit={submit}>
          <Stack>
            {createMutation.isError && (
              <Alert color="red" variant="light" data-testid="create-project-error">
                {[errorMessage(createMutation.error), ...errorDetailLines(createMutation.error)].join(' ')}
              </Alert>
            )}
            <TextInput
              label="Name"
              required
              data-autofocus
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              data-testid="project-name-input"
            />
            <Textarea
              label="Description"
              autosize
              minRows={2}
              value={description}
              onChange={(event) => setDescription(event.currentTarget.value)}
              data-testid="project-description-input"
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={reset}>
                Cancel
              </Button>
              <Button type="submit" loading={createMutation.isPending} disabled={!name.trim()} data-testid="project-create-submit">
                Create
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
