import { Select, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CreateDialog, NameInput } from '@/components/CreateDialog';
import { notifySuccess } from '@/lib/notifications';
import type { Deployment } from '../api/deployments';
import { useCreateDeployment, useProjectModelVersions } from '../hooks/useDeploy';

/** The project's model versions; rendered inside the dialog, so they load only once it is open. */
function ModelVersionField({
  projectId,
  value,
  onChange,
}: {
  projectId: number;
  value: string | null;
  onChange: (value: string | null, label: string | undefined) => void;
}) {
  const { t } = useTranslation('deploy');
  const { data: versions } = useProjectModelVersions(projectId);
  const options = (versions?.results ?? []).map((version) => ({ value: String(version.id), label: version.name }));
  return (
    <>
      {versions && options.length === 0 && (
        <Text size="sm" c="dimmed">
          {t('create.noVersion')}
        </Text>
      )}
      <Select
        label={t('create.modelVersion')}
        placeholder={t('create.pickVersion')}
        data={options}
        value={value}
        onChange={(next) => onChange(next, options.find((option) => option.value === next)?.label)}
        required
        data-testid="create-deployment-version"
      />
    </>
  );
}

/** "New deployment" on a project's Deployments tab: pick a model version and a name. */
export function CreateDeploymentButton({
  projectId,
  disabled = false,
  onDeployed,
}: {
  projectId: number;
  disabled?: boolean;
  onDeployed: (deployment: Deployment) => void;
}) {
  const { t } = useTranslation('deploy');
  const [modelVersion, setModelVersion] = useState<string | null>(null);
  const [name, setName] = useState('');
  const create = useCreateDeployment();

  return (
    <CreateDialog
      label={t('create.button')}
      title={t('create.title')}
      testId="create-deployment"
      submitTestId="create-deployment-submit"
      submitLabel={t('buttons.deploy')}
      disabled={disabled}
      disabledReason={t('create.viewer')}
      mutation={create}
      canSubmit={modelVersion !== null && !!name.trim()}
      variables={() => ({ project: projectId, model_version: Number(modelVersion), name: name.trim() })}
      onReset={() => {
        setModelVersion(null);
        setName('');
      }}
      onCreated={(deployment) => {
        notifySuccess(t('buttons.deployed', { version: deployment.model_version_name, name: deployment.name }), t('buttons.deployedTitle'));
        onDeployed(deployment);
      }}
    >
      <ModelVersionField
        projectId={projectId}
        value={modelVersion}
        onChange={(value, label) => {
          setModelVersion(value);
          if (label && !name.trim()) setName(`${label.toLowerCase()}-api`);
        }}
      />
      <NameInput value={name} onChange={setName} testId="create-deployment-name" autoFocus={false} />
    </CreateDialog>
  );
}
