import { Alert, Badge, Button, Code, CopyButton, Group, Modal, NumberInput, Paper, Select, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { CreateDialog, NameInput } from '@/components/CreateDialog';
import { WithReason } from '@/components/WithReason';
import { translateDynamic } from '@/i18n';
import { formatDateTime, formatRelative } from '@/lib/datetime';
import { errorMessage, notifySuccess } from '@/lib/notifications';
import { statusColor } from '@/lib/statusColors';
import { expiryInDays, keyStatus, type CreatedDeploymentKey, type DeploymentKey } from '../api/apiKeys';
import { useCreateDeploymentKey, useDeploymentKeys, useRevokeDeploymentKey } from '../hooks/useDeploy';

const EXPIRY_DAYS = ['never', '1', '30', '90', '365'] as const;

function CreateKeyButton({ deploymentId, disabled, onCreated }: { deploymentId: number; disabled: boolean; onCreated: (key: CreatedDeploymentKey) => void }) {
  const { t } = useTranslation(['deploy', 'common']);
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState('never');
  const [quota, setQuota] = useState<number | string>('');
  const create = useCreateDeploymentKey(deploymentId);

  return (
    <CreateDialog
      label={t('keys.new')}
      title={t('keys.createTitle')}
      testId="create-deployment-key"
      submitTestId="deployment-key-create-submit"
      disabled={disabled}
      disabledReason={t('keys.viewer')}
      mutation={create}
      canSubmit={!!name.trim()}
      variables={() => {
        const expiresAt = expiryInDays(expiry === 'never' ? null : Number(expiry));
        const body = {
          name: name.trim(),
          ...(expiresAt ? { expires_at: expiresAt } : {}),
          ...(typeof quota === 'number' && quota > 0 ? { quota_per_minute: quota } : {}),
        };
        return { deploymentId, body };
      }}
      onReset={() => {
        setName('');
        setExpiry('never');
        setQuota('');
      }}
      onCreated={onCreated}
    >
      <NameInput value={name} onChange={setName} testId="deployment-key-name-input" description={t('keys.nameHint')} />
      <Select label={t('keys.expires')} data={EXPIRY_DAYS.map((value) => ({ value, label: t(`keys.expiry.${value}`) }))} value={expiry} onChange={(next) => next && setExpiry(next)} allowDeselect={false} data-testid="deployment-key-expiry-input" />
      <NumberInput
        label={t('keys.quota')}
        description={t('keys.quotaHint')}
        min={1}
        allowDecimal={false}
        value={quota}
        onChange={setQuota}
        data-testid="deployment-key-quota-input"
      />
    </CreateDialog>
  );
}

/** Shows a new key once: the server keeps only its hash. */
function KeyCreatedModal({ created, onClose, onTry }: { created: CreatedDeploymentKey | null; onClose: () => void; onTry?: () => void }) {
  const { t } = useTranslation(['deploy', 'common']);
  return (
    <Modal opened={created !== null} onClose={onClose} title={t('keys.created')} closeOnClickOutside={false} closeOnEscape={false} size="lg">
      {created && (
        <Stack>
          <Alert color="yellow" variant="light" title={t('keys.copyNow')} data-testid="deployment-key-warning">
            <Trans t={t} i18nKey="keys.shownOnce" values={{ name: created.name }} components={{ b: <b /> }} />
          </Alert>
          <Code block fz="sm" data-testid="deployment-key-secret" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
            {created.key}
          </Code>
          <Text size="xs" c="dimmed">
            <Trans t={t} i18nKey="keys.sendAs" components={{ c: <Code /> }} />
          </Text>
          <Group justify="space-between">
            <CopyButton value={created.key}>
              {({ copied, copy }) => (
                <Button variant="light" color={copied ? 'teal' : 'blue'} onClick={copy} data-testid="deployment-key-copy">
                  {copied ? t('common:actions.copied') : t('keys.copy')}
                </Button>
              )}
            </CopyButton>
            <Group>
              {onTry && (
                <Button variant="default" onClick={onTry} data-testid="deployment-key-try">
                  {t('keys.tryNow')}
                </Button>
              )}
              <Button onClick={onClose} data-testid="deployment-key-done">
                {t('keys.done')}
              </Button>
            </Group>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

export function ApiKeysPanel({ deploymentId, canEdit = true, onTry }: { deploymentId: number; canEdit?: boolean; onTry?: () => void }) {
  const { t } = useTranslation(['deploy', 'common']);
  const { data, isPending, isError, error } = useDeploymentKeys(deploymentId);
  const revoke = useRevokeDeploymentKey(deploymentId);
  const [created, setCreated] = useState<CreatedDeploymentKey | null>(null);
  const [revoking, setRevoking] = useState<DeploymentKey | null>(null);

  const confirmRevoke = () => {
    if (!revoking) return;
    revoke.mutate(
      { deploymentId, keyId: revoking.id },
      { onSuccess: () => notifySuccess(t('keys.revoked', { name: revoking.name })), onSettled: () => setRevoking(null) },
    );
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm" maw={640}>
          {t('keys.intro')}
        </Text>
        <CreateKeyButton deploymentId={deploymentId} disabled={!canEdit} onCreated={setCreated} />
      </Group>
      {isPending && <Skeleton h={100} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {data && data.length === 0 && (
        <Paper withBorder p="xl" ta="center" data-testid="deployment-keys-empty">
          <Text c="dimmed">{t('keys.empty')}</Text>
        </Paper>
      )}
      {data && data.length > 0 && (
        <Paper withBorder>
          <Table verticalSpacing="sm" data-testid="deployment-keys-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('keys.name')}</Table.Th>
                <Table.Th>{t('keys.prefix')}</Table.Th>
                <Table.Th>{t('keys.status')}</Table.Th>
                <Table.Th>{t('keys.quotaColumn')}</Table.Th>
                <Table.Th>{t('keys.lastUsed')}</Table.Th>
                <Table.Th>{t('keys.expires')}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.map((key) => {
                const status = keyStatus(key);
                return (
                  <Table.Tr key={key.id} data-testid={`deployment-key-row-${key.id}`}>
                    <Table.Td fw={500}>{key.name}</Table.Td>
                    <Table.Td>
                      <Code>{key.prefix}…</Code>
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={statusColor('key', status)} data-testid={`deployment-key-status-${key.id}`}>
                        {translateDynamic(`deploy:keys.statuses.${status}`, status)}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{key.quota_per_minute ? t('keys.perMinute', { count: key.quota_per_minute }) : t('keys.none')}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" data-testid={`deployment-key-last-used-${key.id}`}>
                        {key.last_used_at ? formatRelative(key.last_used_at) : t('keys.never')}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{key.expires_at ? formatDateTime(key.expires_at) : t('keys.never')}</Text>
                    </Table.Td>
                    <Table.Td>
                      <WithReason reason={!canEdit ? t('keys.viewer') : status === 'revoked' && t('keys.alreadyRevoked')}>
                        <Button
                          size="xs"
                          variant="subtle"
                          color="red"
                          disabled={!canEdit || status === 'revoked'}
                          onClick={() => setRevoking(key)}
                          data-testid={`deployment-key-revoke-${key.id}`}
                        >
                          {t('keys.revoke')}
                        </Button>
                      </WithReason>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Paper>
      )}
      <KeyCreatedModal
        created={created}
        onClose={() => setCreated(null)}
        onTry={
          onTry &&
          (() => {
            setCreated(null);
            onTry();
          })
        }
      />
      <Modal opened={revoking !== null} onClose={() => setRevoking(null)} title={t('keys.revokeTitle')}>
        <Stack>
          <Text>
            <Trans t={t} i18nKey="keys.revokeConfirm" values={{ name: revoking?.name ?? '' }} components={{ b: <b /> }} />
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRevoking(null)}>
              {t('keys.keep')}
            </Button>
            <Button color="red" loading={revoke.isPending} onClick={confirmRevoke} data-testid="deployment-key-revoke-confirm">
              {t('keys.revoke')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
