import { Anchor, Button, Code, CopyButton, Group, Modal, Paper, Select, SimpleGrid, Stack, Text, Timeline, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { formatDateTime, formatRelative } from '@/lib/datetime';
import { notifySuccess } from '@/lib/notifications';
import { absolutePredictUrl, HISTORY_ACTIONS, type Deployment } from '../api/deployments';
import { useDeleteDeployment, useDeploymentAction, useProjectModelVersions } from '../hooks/useDeploy';
import { DeploymentStatusBadge } from './DeploymentStatusBadge';

type Confirm =
  | { kind: 'stop' | 'start' | 'rollback' | 'delete' }
  | { kind: 'switch'; modelVersion: number; name: string };

const CONFIRM_TEXT = {
  stop: 'Stop serving? Calls get 503 answers until you start it again; keys and usage are kept.',
  start: 'Start serving again with the current model version?',
  rollback: 'Go back to the previous model version? Requests in flight finish on the current one.',
  delete: 'Delete this deployment with its keys and usage? Callers get 404 answers. This cannot be undone.',
} as const;

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
  const action = useDeploymentAction();
  const remove = useDeleteDeployment();
  const { data: versions } = useProjectModelVersions(deployment.project);
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
          confirm.kind === 'stop' ? `${updated.name} stopped.` : confirm.kind === 'start' ? `${updated.name} is serving again.` : `${updated.name} now serves ${updated.model_version_name}.`,
        );
        setTarget(null);
      },
      onSettled: () => setConfirm(null),
    });
  };

  const history = [...(deployment.history ?? [])].reverse();
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Paper withBorder p="md">
          <Stack gap="xs">
            <Group justify="space-between">
              <Title order={5}>Endpoint</Title>
              <DeploymentStatusBadge id={deployment.id} status={deployment.status} />
            </Group>
            <Group gap="xs" wrap="nowrap">
              <Code fz="sm" style={{ wordBreak: 'break-all' }} data-testid="deployment-predict-url">
                {url}
              </Code>
              <CopyButton value={url}>
                {({ copied, copy }) => (
                  <Button size="xs" variant="light" color={copied ? 'teal' : 'blue'} onClick={copy}>
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
            </Group>
            <Text size="sm">
              Serving{' '}
              <Anchor component={Link} to={`/model-versions/${deployment.model_version}`} fw={600} data-testid="deployment-model-version">
                {deployment.model_version_name}
              </Anchor>
              {deployment.previous_model_version !== null && deployment.previous_model_version !== undefined && (
                <Text span c="dimmed" size="sm">
                  {' '}
                  (before: {versionName(deployment.previous_model_version)})
                </Text>
              )}
            </Text>
            <Text size="xs" c="dimmed">
              Created {formatDateTime(deployment.created_at)} by {deployment.created_by}
            </Text>
            <Group mt="xs">
              {deployment.status === 'active' ? (
                <Button color="red" variant="light" disabled={!canEdit} onClick={() => setConfirm({ kind: 'stop' })} data-testid="deployment-stop">
                  Stop
                </Button>
              ) : (
                <Button color="teal" disabled={!canEdit} onClick={() => setConfirm({ kind: 'start' })} data-testid="deployment-start">
                  Start
                </Button>
              )}
              <Button
                variant="default"
                disabled={!canEdit || deployment.previous_model_version === null || deployment.previous_model_version === undefined}
                onClick={() => setConfirm({ kind: 'rollback' })}
                data-testid="deployment-rollback"
              >
                {deployment.previous_model_version === null || deployment.previous_model_version === undefined
                  ? 'Roll back'
                  : `Roll back to ${versionName(deployment.previous_model_version)}`}
              </Button>
              <Button variant="subtle" color="red" disabled={!canEdit} onClick={() => setConfirm({ kind: 'delete' })} data-testid="deployment-delete">
                Delete
              </Button>
            </Group>
          </Stack>
        </Paper>
        <Paper withBorder p="md">
          <Stack gap="xs">
            <Title order={5}>Switch model version</Title>
            <Text size="sm" c="dimmed">
              Requests already running finish on the old version; new ones go to the new version. Nothing is dropped.
            </Text>
            <Group align="flex-end">
              <Select
                label="Model version"
                placeholder={options.length ? 'Pick a version' : 'No other version in this project'}
                data={options}
                value={target}
                onChange={setTarget}
                disabled={!canEdit || options.length === 0}
                flex={1}
                data-testid="deployment-switch-select"
              />
              <Button
                disabled={!canEdit || target === null}
                onClick={() => target && setConfirm({ kind: 'switch', modelVersion: Number(target), name: versionName(Number(target)) })}
                data-testid="deployment-switch"
              >
                Switch
              </Button>
            </Group>
          </Stack>
        </Paper>
      </SimpleGrid>

      <Paper withBorder p="md">
        <Title order={5} mb="sm">
          History
        </Title>
        {history.length === 0 ? (
          <Text size="sm" c="dimmed">
            Nothing yet.
          </Text>
        ) : (
          <Timeline bulletSize={14} lineWidth={2} active={0} data-testid="deployment-history">
            {history.map((entry, index) => (
              <Timeline.Item key={`${entry.at}-${index}`} title={`${HISTORY_ACTIONS[entry.action] ?? entry.action} · ${entry.model_version_name ?? versionName(entry.model_version)}`} data-testid="deployment-history-entry" data-action={entry.action}>
                <Text size="xs" c="dimmed" title={formatDateTime(entry.at)}>
                  {formatRelative(entry.at)}
                  {entry.by ? ` · ${entry.by}` : ''}
                </Text>
              </Timeline.Item>
            ))}
          </Timeline>
        )}
      </Paper>

      <Modal opened={confirm !== null} onClose={() => setConfirm(null)} title={confirm?.kind === 'switch' ? 'Switch model version' : 'Please confirm'}>
        <Stack>
          <Text data-testid="deployment-confirm-text">
            {confirm?.kind === 'switch'
              ? `Serve ${confirm.name} instead of ${deployment.model_version_name}? Requests in flight finish on the current one.`
              : confirm
                ? CONFIRM_TEXT[confirm.kind]
                : ''}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirm(null)}>
              Cancel
            </Button>
            <Button
              color={confirm?.kind === 'stop' || confirm?.kind === 'delete' ? 'red' : 'blue'}
              loading={action.isPending || remove.isPending}
              onClick={run}
              data-testid="deployment-confirm"
            >
              {confirm?.kind === 'switch' ? 'Switch' : confirm?.kind === 'rollback' ? 'Roll back' : confirm?.kind === 'delete' ? 'Delete' : confirm?.kind === 'stop' ? 'Stop' : 'Start'}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
