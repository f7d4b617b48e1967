import { Anchor, Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { CreateDialog, NameInput } from '@/components/CreateDialog';
import { WithReason } from '@/components/WithReason';
import { notifySuccess } from '@/lib/notifications';
import { statusColor } from '@/lib/statusColors';
import type { Deployment } from '../api/deployments';
import type { PackageKind } from '../api/packages';
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
  const { t } = useTranslation('deploy');
  const [name, setName] = useState('');
  const createDeployment = useCreateDeployment();
  const createPackage = useCreatePackage();
  const { data: deployments } = useDeployments(version.project);
  const serving = (deployments?.results ?? []).filter((deployment) => deployment.model_version === version.id);

  const build = (kind: PackageKind) =>
    createPackage.mutate(
      { modelVersion: version.id, kind },
      { onSuccess: () => notifySuccess(t('buttons.building', { kind: t(`packages.kinds.${kind}.title`), version: version.name })) },
    );

  return (
    <Paper withBorder p="md" data-testid="deploy-buttons">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <div>
            <Title order={5}>{t('buttons.title', { version: version.name })}</Title>
            <Text size="sm" c="dimmed">
              {t('buttons.intro')}
            </Text>
          </div>
          {serving.length > 0 && (
            <Group gap={6} data-testid="deploy-serving">
              <Text size="sm" c="dimmed">
                {t('buttons.servingIn')}
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
            label={t('buttons.hosted')}
            title={t('buttons.hostedTitle', { version: version.name })}
            testId="deploy-hosted"
            submitTestId="deployment-create-submit"
            submitLabel={t('buttons.deploy')}
            disabled={!!disabledReason}
            disabledReason={disabledReason ?? undefined}
            intro={
              <Text size="sm" c="dimmed">
                {t('buttons.hostedIntro')}
              </Text>
            }
            mutation={createDeployment}
            canSubmit={!!name.trim()}
            variables={() => ({ project: version.project, model_version: version.id, name: name.trim() })}
            onOpen={() => setName(`${version.name.toLowerCase()}-api`)}
            onReset={() => setName('')}
            onCreated={(deployment) => {
              notifySuccess(t('buttons.deployed', { version: version.name, name: deployment.name }), t('buttons.deployedTitle'));
              onDeployed(deployment);
            }}
          >
            <NameInput value={name} onChange={setName} testId="deployment-name-input" description={t('buttons.nameHint')} />
          </CreateDialog>
          {(['server', 'device'] as const).map((kind) => (
            <WithReason key={kind} reason={disabledReason}>
              <Button
                variant="light"
                onClick={() => build(kind)}
                loading={createPackage.isPending && createPackage.variables?.kind === kind}
                disabled={!!disabledReason}
                title={disabledReason ? undefined : t(`packages.kinds.${kind}.description`)}
                data-testid={kind === 'server' ? 'deploy-server-package' : 'deploy-device-sdk'}
              >
                {t(`packages.kinds.${kind}.title`)}
              </Button>
            </WithReason>
          ))}
        </Group>
      </Stack>
    </Paper>
  );
}
