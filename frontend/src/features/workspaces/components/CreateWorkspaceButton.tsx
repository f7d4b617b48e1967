import { Alert, Button, Group, Modal, Stack, TextInput, Textarea } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState, type FormEvent } from 'react';
import { errorDetailLines, errorMessage } from '@/lib/notifications';
import type { Workspace } from '../api/workspaces';
import { useCreateWorkspace } from '../hooks/useWorkspaces';

export function CreateWorkspaceButton({ onCreated }: { onCreated?: (workspace: Workspace) => void }) {
  const [opened, { open, close }] = useDisclosure(false);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const createMutation = useCreateWorkspace();

  const reset = () => {
    setName('');
    setDescription('');
    createMutation.reset();
    close();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    createMutation.mutate(
      { name: name.trim(), description: description.trim() },
      {
        onSuccess: (workspace) => {
          reset();
          onCreated?.(workspace);
        },
      },
    );
  };

  return (
    <>
      <Button onClick={open} data-testid="create-workspace">
        New workspace
      </Button>
      <Modal opened={opened} onClose={reset} title="Create a workspace">
        <form onSubmit={submit}>
          <Stack>
            {createMutation.isError && (
              <Alert color="red" variant="light" data-testid="create-workspace-error">
                {[errorMessage(createMutation.error), ...errorDetailLines(createMutation.error)].join(' ')}
              </Alert>
            )}
            <TextInput
              label="Name"
              required
              data-autofocus
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              data-testid="workspace-name-input"
            />
            <Textarea
              label="Description"
              autosize
              minRows={2}
              value={description}
              onChange={(event) => setDescription(event.currentTarget.value)}
              data-testid="workspace-description-input"
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={reset}>
                Cancel
              </Button>
              <Button type="submit" loading={createMutation.isPending} disabled={!name.trim()} data-testid="workspace-create-submit">
                Create
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
