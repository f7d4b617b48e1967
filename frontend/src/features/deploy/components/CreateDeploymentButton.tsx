import { Alert, Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState, type FormEvent } from 'react';
import { errorDetailLines, errorMessage, notifySuccess } from '@/lib/notifications';
import type { Deployment } from '../api/deployments';
import { useCreateDeployment, useProjectModelVersions } from '../hooks/useDeploy';

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
  const [opened, { open, close }] = useDisclosure(false);
  const [modelVersion, setModelVersion] = useState<string | null>(null);
  const [name, setName] = useState('');
  const { data: versions } = useProjectModelVersions(opened ? projectId : undefined);
  const create = useCreateDeployment();
  const options = (versions?.results ?? []).map((version) => ({ value: String(version.id), label: version.name }));

  const reset = () => {
    setModelVersion(null);
    setName('');
    create.reset();
    close();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (modelVersion === null) return;
    create.mutate(
      { project: projectId, model_version: Number(modelVersion), name: name.trim() },
      {
        onSuccess: (deployment) => {
          reset();
          notifySuccess(`${deployment.model_version_name} is served at ${deployment.name}.`, 'Deployed');
          onDeployed(deployment);
        },
      },
    );
  };

  return (
    <>
      <Button onClick={open} disabled={disabled} data-testid="create-deployment">
        New deployment
      </Button>
      <Modal opened={opened} onClose={reset} title="Deploy a model version as a hosted API">
        <form onSubmit={submit}>
          <Stack>
            {create.isError && (
              <Alert color="red" variant="light" data-testid="create-deployment-error">
                {[errorMessage(create.error), ...errorDetailLines(create.error)].join(' ')}
              </Alert>
            )}
            {versions && options.length === 0 && (
              <Text size="sm" c="dimmed">
                This project has no model version yet: train one first.
              </Text>
            )}
            <Select
              label="Model version"
              placeholder="Pick a version"
              data={options}
              value={modelVersion}
              onChange={(value) => {
                setModelVersion(value);
                const picked = options.find((option) => option.value === value);
                if (picked && !name.trim()) setName(`${picked.label.toLowerCase()}-api`);
              }}
              required
              data-testid="create-deployment-version"
            />
            <TextInput
              label="Name"
              required
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              data-testid="create-deployment-name"
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={reset}>
                Cancel
              </Button>
              <Button type="submit" disabled={modelVersion === null || !name.trim()} loading={create.isPending} data-testid="create-deployment-submit">
                Deploy
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
