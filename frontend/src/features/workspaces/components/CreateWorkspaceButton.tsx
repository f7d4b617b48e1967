import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CreateDialog, DescriptionInput, NameInput } from '@/components/CreateDialog';
import type { Workspace } from '../api/workspaces';
import { useCreateWorkspace } from '../hooks/useWorkspaces';

export function CreateWorkspaceButton({ onCreated }: { onCreated?: (workspace: Workspace) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const createMutation = useCreateWorkspace();
  const { t } = useTranslation('workspaces');

  return (
    <CreateDialog
      label={t('create.label')}
      title={t('create.title')}
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
      <NameInput value={name} onChange={setName} testId="workspace-name-input" />
      <DescriptionInput value={description} onChange={setDescription} testId="workspace-description-input" />
    </CreateDialog>
  );
}
