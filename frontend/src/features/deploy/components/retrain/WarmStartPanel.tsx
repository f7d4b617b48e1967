import { Anchor, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { WithReason } from '@/components/WithReason';
import { notifySuccess } from '@/lib/notifications';
import type { Deployment } from '../../api/deployments';
import { useDeployments, useTrafficAction } from '../../hooks/useDeploy';
import { withCanary } from './api';

/** The share of traffic "Start a canary" gives the warm-started version. */
export const CANARY_WEIGHT = 10;

type Version = { id: number; name: string; project: number; warm_start_from?: number | null; warm_start_from_name?: string | null };

/**
 * A warm-started version's lineage: "warm-started from V3"; for each deployment of the project that
 * serves V3, a link to compare with it and "Start a canary (10%)" (or the canary's share when it is one).
 * Nothing for a version trained from scratch.
 */
export function WarmStartPanel({ version, canEdit = true }: { version: Version; canEdit?: boolean }) {
  const { t } = useTranslation('training');
  const parent = version.warm_start_from ?? null;
  const { data: deployments } = useDeployments(parent === null ? Number.NaN : version.project);
  if (parent === null) return null;
  const serving = (deployments?.results ?? []).filter((deployment) => deployment.model_version === parent);
  return (
    <Paper withBorder p="md" data-testid="warm-start">
      <Stack gap="xs">
        <Text size="sm">
          {t('retrain.warmStartedFrom')}{' '}
          <Anchor component={Link} to={`/model-versions/${parent}`} fw={600} data-testid="warm-start-parent">
            {version.warm_start_from_name ?? `#${parent}`}
          </Anchor>
        </Text>
        {serving.map((deployment) => (
          <ServingParent key={deployment.id} deployment={deployment} version={version} parent={parent} canEdit={canEdit} />
        ))}
      </Stack>
    </Paper>
  );
}

function ServingParent({ deployment, version, parent, canEdit }: { deployment: Deployment; version: Version; parent: number; canEdit: boolean }) {
  const { t } = useTranslation(['training', 'common']);
  const setTraffic = useTrafficAction();
  const canary = (deployment.traffic ?? []).find((entry) => entry.role === 'canary' && entry.model_version === version.id);
  const start = () =>
    setTraffic.mutate(
      { kind: 'traffic', id: deployment.id, canaries: withCanary(deployment.traffic, version.id, CANARY_WEIGHT) },
      { onSuccess: () => notifySuccess(t('retrain.canaryStarted', { deployment: deployment.name, version: version.name, weight: CANARY_WEIGHT })) },
    );
  return (
    <Group gap="sm" data-testid={`warm-start-deployment-${deployment.id}`}>
      <Text size="sm" c="dimmed">
        {t('retrain.servedBy', { deployment: deployment.name, version: deployment.model_version_name })}
      </Text>
      <Anchor component={Link} to={`/model-versions/compare?a=${parent}&b=${version.id}`} size="sm" data-testid="warm-start-compare">
        {t('retrain.compareWithServing')}
      </Anchor>
      {canary ? (
        <Anchor component={Link} to={`/deployments/${deployment.id}/traffic`} size="sm" data-testid="warm-start-canary-share">
          {t('retrain.canaryAt', { weight: canary.weight })}
        </Anchor>
      ) : (
        <WithReason reason={canEdit ? null : t('common:permissions.viewerReadOnly')}>
          <Button size="xs" variant="light" disabled={!canEdit} loading={setTraffic.isPending} onClick={start} data-testid="warm-start-canary">
            {t('retrain.startCanary', { weight: CANARY_WEIGHT })}
          </Button>
        </WithReason>
      )}
    </Group>
  );
}
