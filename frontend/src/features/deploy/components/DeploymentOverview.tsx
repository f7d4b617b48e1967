import { Anchor, Button, Code, CopyButton, Group, Modal, Paper, Select, SimpleGrid, Stack, Text, Timeline, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { WithReason } from '@/components/WithReason';
import { translateDynamic } from '@/i18n';
import { formatDateTime, formatRelative } from '@/lib/datetime';
import { notifySuccess } from '@/lib/notifications';
import { forecastContractOf, isForecastingTemplate } from '@/lib/forecasting';
import { absolutePredictUrl, type Deployment } from '../api/deployments';
import { useDeleteDeployment, useDeploymentAction, useModelVersion, useProjectModelVersions } from '../hooks/useDeploy';
import { ForecastContractView } from './ForecastContractView';
import { DeploymentStatusBadge } from './DeploymentStatusBadge';
import { HistoryDetails } from './HistoryDetails';
import { RetrainButton } from './retrain';

type Confirm =
  | { kind: 'stop' | 'start' | 'rollback' | 'delete' }
  | { kind: 'switch'; modelVersion: number; name: string };


/** Status, endpoint, the model version served, version switch / rollback / stop / start, and history. */
export function DeploymentOverview({
  deployment,
  canEdit = true,
  onDeleted,
}: {
  deployment: Deployment;
  canEdit?: boolean;
  onDeleted: () => void;
}) {
  const { t } = useTranslation(['deploy', 'common']);
  const readOnly = canEdit ? null : t('common:permissions.viewerReadOnly');
  const action = useDeploymentAction();
  const remove = useDeleteDeployment();
  const { data: versions } = useProjectModelVersions(deployment.project);
  const forecaster = isForecastingTemplate(deployment.template);
  // a forecaster's contract: the deployment's, or its model version's while the deployment does not send it
  const declared = forecastContractOf(deployment as { forecast_contract?: unknown });
  const { data: served } = useModelVersion(forecaster && !declared ? deployment.model_version : null);
  const contract = declared ?? (forecaster ? forecastContractOf(served as { forecast_contract?: unknown; preprocessing?: unknown } | undefined) : null);
  const [target, setTarget] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const url = absolutePredictUrl(deployment);
  const versionName = (id: number | null | undefined) =>
    id === null || id === undefined ? '—' : (versions?.results.find((version) => version.id === id)?.name ?? `#${id}`);
  const options = (versions?.results ?? [])
    .filter((version) => version.id !== deployment.model_version)
    .map((version) => ({ value: String(version.id), label: version.name }));

  const run = () => {
    if (!confirm) return;
    if (confirm.kind === 'delete') {
      remove.mutate(deployment.id, { onSuccess: () => { setConfirm(null); onDeleted(); } });
      return;
    }
    const request = confirm.kind === 'switch' ? { kind: 'switch' as const, id: deployment.id, modelVersion: confirm.modelVersion } : { kind: confirm.kind, id: deployment.id };
    action.mutate(request, {
      onSuccess: (updated) => {
        notifySuccess(
          confirm.kind === 'stop'
            ? t('overview.stopped', { name: updated.name })
            : confirm.kind === 'start'
              ? t('overview.started', { name: updated.name })
              : t('overview.switched', { name: updated.name, version: updated.model_version_name }),
        );
        setTarget(null);
      },
      onSettled: () => setConfirm(null),
    });
  };

  const history = [...(deployment.history ?? [])].reverse();
  const noPrevious = deployment.previous_model_version === null || deployment.previous_model_version === undefined;
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Paper withBorder p="md">
          <Stack gap="xs">
            <Group justify="space-between">
              <Title order={5}>{t('overview.endpoint')}</Title>
              <DeploymentStatusBadge id={deployment.id} status={deployment.status} />
            </Group>
            <Group gap="xs" wrap="nowrap">
              <Code fz="sm" style={{ wordBreak: 'break-all' }} data-testid="deployment-predict-url">
                {url}
              </Code>
              <CopyButton value={url}>
                {({ copied, copy }) => (
                  <Button size="xs" variant="light" color={copied ? 'teal' : 'blue'} onClick={copy}>
                    {copied ? t('common:actions.copied') : t('common:actions.copy')}
                  </Button>
                )}
              </CopyButton>
            </Group>
            <Text size="sm">
              {t('overview.serving')}{' '}
              <Anchor component={Link} to={`/model-versions/${deployment.model_version}`} fw={600} data-testid="deployment-model-version">
                {deployment.model_version_name}
              </Anchor>
              {deployment.previous_model_version !== null && deployment.previous_model_version !== undefined && (
                <Text span c="dimmed" size="sm">
                  {' '}
                  {t('overview.before', { version: versionName(deployment.previous_model_version) })}
                </Text>
              )}
            </Text>
            <Text size="xs" c="dimmed">
              {t('overview.created', { at: formatDateTime(deployment.created_at), by: deployment.created_by })}
            </Text>
            {!deployment.template.startsWith('tabular') && !forecaster && (
              <Group>
                <RetrainButton
                  version={{ id: deployment.model_version, name: deployment.model_version_name, project: deployment.project }}
                  deploymentId={deployment.id}
                  canEdit={canEdit}
                />
              </Group>
            )}
            <Group mt="xs">
              {deployment.status === 'active' ? (
                <WithReason reason={readOnly}>
                  <Button color="red" variant="light" disabled={!canEdit} onClick={() => setConfirm({ kind: 'stop' })} data-testid="deployment-stop">
                    {t('overview.stop')}
                  </Button>
                </WithReason>
              ) : (
                <WithReason reason={readOnly}>
                  <Button color="teal" disabled={!canEdit} onClick={() => setConfirm({ kind: 'start' })} data-testid="deployment-start">
                    {t('overview.start')}
                  </Button>
                </WithReason>
              )}
              <WithReason reason={readOnly ?? (noPrevious && t('overview.noPrevious'))}>
                <Button variant="default" disabled={!canEdit || noPrevious} onClick={() => setConfirm({ kind: 'rollback' })} data-testid="deployment-rollback">
                  {noPrevious ? t('overview.rollback') : t('overview.rollbackTo', { version: versionName(deployment.previous_model_version) })}
                </Button>
              </WithReason>
              <WithReason reason={readOnly}>
                <Button variant="subtle" color="red" disabled={!canEdit} onClick={() => setConfirm({ kind: 'delete' })} data-testid="deployment-delete">
                  {t('overview.delete')}
                </Button>
              </WithReason>
            </Group>
          </Stack>
        </Paper>
        <Paper withBorder p="md">
          <Stack gap="xs">
            <Title order={5}>{t('overview.switchTitle')}</Title>
            <Text size="sm" c="dimmed">
              {t('overview.switchIntro')}
            </Text>
            <Group align="flex-end">
              <Select
                label={t('overview.modelVersion')}
                placeholder={options.length ? t('overview.pickVersion') : t('overview.noOtherVersion')}
                data={options}
                value={target}
                onChange={setTarget}
                disabled={!canEdit || options.length === 0}
                flex={1}
                data-testid="deployment-switch-select"
              />
              <WithReason reason={readOnly ?? (target === null && t('overview.pickFirst'))}>
                <Button
                  disabled={!canEdit || target === null}
                  onClick={() => target && setConfirm({ kind: 'switch', modelVersion: Number(target), name: versionName(Number(target)) })}
                  data-testid="deployment-switch"
                >
                  {t('overview.switch')}
                </Button>
              </WithReason>
            </Group>
          </Stack>
        </Paper>
      </SimpleGrid>

      {contract && <ForecastContractView contract={contract} />}

      <Paper withBorder p="md">
        <Title order={5} mb="sm">
          {t('overview.history')}
        </Title>
        {history.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('overview.nothingYet')}
          </Text>
        ) : (
          <Timeline bulletSize={14} lineWidth={2} active={0} data-testid="deployment-history">
            {history.map((entry, index) => (
              <Timeline.Item key={`${entry.at}-${index}`} title={`${translateDynamic(`deploy:history.${entry.action}`, entry.action)} · ${entry.model_version_name ?? versionName(entry.model_version)}`} data-testid="deployment-history-entry" data-action={entry.action}>
                <Text size="xs" c="dimmed" title={formatDateTime(entry.at)}>
                  {formatRelative(entry.at)}
                  {entry.by ? ` · ${entry.by}` : ''}
                </Text>
                <HistoryDetails entry={entry} />
              </Timeline.Item>
            ))}
          </Timeline>
        )}
      </Paper>

      <Modal opened={confirm !== null} onClose={() => setConfirm(null)} title={confirm?.kind === 'switch' ? t('overview.switchTitle') : t('overview.confirmTitle')}>
        <Stack>
          <Text data-testid="deployment-confirm-text">
            {confirm?.kind === 'switch'
              ? t('overview.confirm.switch', { version: confirm.name, current: deployment.model_version_name })
              : confirm
                ? t(`overview.confirm.${confirm.kind}`)
                : ''}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirm(null)}>
              {t('common:actions.cancel')}
            </Button>
            <Button
              color={confirm?.kind === 'stop' || confirm?.kind === 'delete' ? 'red' : 'blue'}
              loading={action.isPending || remove.isPending}
              onClick={run}
              data-testid="deployment-confirm"
            >
              {confirm?.kind === 'switch'
                ? t('overview.switch')
                : confirm?.kind === 'rollback'
                  ? t('overview.rollback')
                  : confirm?.kind === 'delete'
                    ? t('overview.delete')
                    : confirm?.kind === 'stop'
                      ? t('overview.stop')
                      : t('overview.start')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
