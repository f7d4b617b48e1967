import { useState } from 'react';
import { CreateDialog, DescriptionInput, NameInput } from '@/components/CreateDialog';
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
      <NameInput value={name} onChange={setName} testId="project-name-input" />
      <DescriptionInput value={description} onChange={setDescription} testId="project-description-input" />
    </CreateDialog>
  );
}
