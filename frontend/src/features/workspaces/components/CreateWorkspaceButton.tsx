import { TextInput, Textarea } from '@mantine/core';
import { useState } from 'react';
import { CreateDialog } from '@/components/CreateDialog';
import type { Workspace } from '../api/workspaces';
import { useCreateWorkspace } from '../hooks/useWorkspaces';

export function CreateWorkspaceButton({ onCreated }: { onCreated?: (workspace: Workspace) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const createMutation = useCreateWorkspace();

  return (
    <CreateDialog
      label="New workspace"
      title="Create a workspace"
      testId="create-workspace"
      submitTestId="workspace-create-submit"
      mutation={createMutation}
      canSubmit={!!name.trim()}
      variables={() => ({ name: name.trim(), description: description.trim() })}
      onReset={() => {
        setName('');
        setDescription('');
      }}
      onCreated={onCreated}
    >
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
    </CreateDialog>
  );
}
