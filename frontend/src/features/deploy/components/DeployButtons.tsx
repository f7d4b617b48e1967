import { Anchor, Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { CreateDialog, NameInput } from '@/components/CreateDialog';
import { notifySuccess } from '@/lib/notifications';
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
  const [name, setName] = useState('');
  const createDeployment = useCreateDeployment();
  const createPackage = useCreatePackage();
  const { data: deployments } = useDeployments(version.project);
  const serving = (deployments?.results ?? []).filter((deployment) => deployment.model_version === version.id);

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
          <CreateDialog
            label="Hosted API"
            title={`Deploy ${version.name} as a hosted API`}
            testId="deploy-hosted"
            submitTestId="deployment-create-submit"
            submitLabel="Deploy"
            disabled={!!disabledReason}
            buttonTitle={disabledReason ?? undefined}
            intro={
              <Text size="sm" c="dimmed">
                The deployment gets its own prediction URL. Callers need a key of this deployment; you create keys on the next page.
              </Text>
            }
            mutation={createDeployment}
            canSubmit={!!name.trim()}
            variables={() => ({ project: version.project, model_version: version.id, name: name.trim() })}
            onOpen={() => setName(`${version.name.toLowerCase()}-api`)}
            onReset={() => setName('')}
            onCreated={(deployment) => {
              notifySuccess(`${version.name} is served at ${deployment.name}.`, 'Deployed');
              onDeployed(deployment);
            }}
          >
            <NameInput value={name} onChange={setName} testId="deployment-name-input" description="How you recognise it in the list, e.g. “digits-prod”" />
          </CreateDialog>
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
    </Paper>
  );
}
