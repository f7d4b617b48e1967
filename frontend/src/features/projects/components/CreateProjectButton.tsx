import { useState } from 'react';
import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation('projects');

  return (
    <CreateDialog
      label={t('create.label')}
      title={t('create.title')}
      testId="create-project"
      submitTestId="project-create-submit"
      disabled={disabled}
      disabledReason={t('create.viewerReason')}
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
