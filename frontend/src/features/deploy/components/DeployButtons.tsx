import { Alert, Anchor, Badge, Button, Group, Modal, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { errorDetailLines, errorMessage, notifySuccess } from '@/lib/notifications';
import { statusColor } from '@/lib/statusColors';
import type { Deployment } from '../api/deployments';
import { PACKAGE_KINDS, type PackageKind } from '../api/packages';
import { useCreateDeployment, useCreatePackage, useDeployments } from '../hooks/useDeploy';

type Version = { id: number; name: string; project: number };

/**
 * The three ways to deliver a model version: a hosted prediction API (a deployment with keys and
 * usage), an on-prem server package, and a device SDK (both built as jobs, listed below them).
 */
export function DeployButtons({
  version,
  disabledReason = null,
  onDeployed,
}: {
  version: Version;
  disabledReason?: string | null;
  onDeployed: (deployment: Deployment) => void;
}) {
  const [opened, { open, close }] = useDisclosure(false);
  const [name, setName] = useState('');
  const createDeployment = useCreateDeployment();
  const createPackage = useCreatePackage();
  const { data: deployments } = useDeployments(version.project);
  const serving = (deployments?.results ?? []).filter((deployment) => deployment.model_version === version.id);

  const openHosted = () => {
    setName(`${version.name.toLowerCase()}-api`);
    createDeployment.reset();
    open();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    createDeployment.mutate(
      { project: version.project, model_version: version.id, name: name.trim() },
      {
        onSuccess: (deployment) => {
          close();
          notifySuccess(`${version.name} is served at ${deployment.name}.`, 'Deployed');
          onDeployed(deployment);
        },
      },
    );
  };

  const build = (kind: PackageKind) =>
    createPackage.mutate(
      { modelVersion: version.id, kind },
      { onSuccess: () => notifySuccess(`Building the ${PACKAGE_KINDS[kind].title.toLowerCase()} of ${version.name}; it appears under Packages.`) },
    );

  return (
    <Paper withBorder p="md" data-testid="deploy-buttons">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <div>
            <Title order={5}>Deploy {version.name}</Title>
            <Text size="sm" c="dimmed">
              Serve it as an HTTP API here, or download it to run on your own server or on a device.
            </Text>
          </div>
          {serving.length > 0 && (
            <Group gap={6} data-testid="deploy-serving">
              <Text size="sm" c="dimmed">
                Serving in
              </Text>
              {serving.map((deployment) => (
                <Anchor key={deployment.id} component={Link} to={`/deployments/${deployment.id}`} size="sm">
                  <Badge variant="light" color={statusColor('deployment', deployment.status)} style={{ cursor: 'pointer' }}>
                    {deployment.name}
                  </Badge>
                </Anchor>
              ))}
            </Group>
          )}
        </Group>
        <Group>
          <Button onClick={openHosted} disabled={!!disabledReason} title={disabledReason ?? undefined} data-testid="deploy-hosted">
            Hosted API
          </Button>
          <Button
            variant="light"
            onClick={() => build('server')}
            loading={createPackage.isPending && createPackage.variables?.kind === 'server'}
            disabled={!!disabledReason}
            title={disabledReason ?? PACKAGE_KINDS.server.description}
            data-testid="deploy-server-package"
          >
            On-prem server package
          </Button>
          <Button
            variant="light"
            onClick={() => build('device')}
            loading={createPackage.isPending && createPackage.variables?.kind === 'device'}
            disabled={!!disabledReason}
            title={disabledReason ?? PACKAGE_KINDS.device.description}
            data-testid="deploy-device-sdk"
          >
            Device SDK
          </Button>
        </Group>
      </Stack>
      <Modal opened={opened} onClose={close} title={`Deploy ${version.name} as a hosted API`}>
        <form onSubmit={submit}>
          <Stack>
            <Text size="sm" c="dimmed">
              The deployment gets its own prediction URL. Callers need a key of this deployment; you create keys on the next page.
            </Text>
            {createDeployment.isError && (
              <Alert color="red" variant="light" data-testid="deploy-hosted-error">
                {[errorMessage(createDeployment.error), ...errorDetailLines(createDeployment.error)].join(' ')}
              </Alert>
            )}
            <TextInput
              label="Name"
              description="How you recognise it in the list, e.g. “digits-prod”"
              required
              data-autofocus
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              data-testid="deployment-name-input"
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" disabled={!name.trim()} loading={createDeployment.isPending} data-testid="deployment-create-submit">
                Deploy
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Paper>
  );
}
