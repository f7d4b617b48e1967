import { TextInput, Textarea } from '@mantine/core';
import { useState } from 'react';
import { CreateDialog } from '@/components/CreateDialog';
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
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const createMutation = useCreateProject();

  return (
    <CreateDialog
      label="New project"
      title="Create a project"
      testId="create-project"
      submitTestId="project-create-submit"
      disabled={disabled}
      disabledReason="Viewers cannot create projects"
      mutation={createMutation}
      canSubmit={!!name.trim()}
      variables={() => ({ workspace: workspaceId, name: name.trim(), description: description.trim() })}
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
    </CreateDialog>
  );
}
