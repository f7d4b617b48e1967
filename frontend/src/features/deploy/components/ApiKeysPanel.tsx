import { Alert, Badge, Button, Code, CopyButton, Group, Modal, NumberInput, Paper, Select, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { CreateDialog, NameInput } from '@/components/CreateDialog';
import { formatDateTime, formatRelative } from '@/lib/datetime';
import { errorMessage, notifySuccess } from '@/lib/notifications';
import { statusColor } from '@/lib/statusColors';
import { expiryInDays, keyStatus, type CreatedDeploymentKey, type DeploymentKey } from '../api/apiKeys';
import { useCreateDeploymentKey, useDeploymentKeys, useRevokeDeploymentKey } from '../hooks/useDeploy';

const EXPIRY_OPTIONS = [
  { value: 'never', label: 'Never' },
  { value: '1', label: 'In 1 day' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In 1 year' },
];

function CreateKeyButton({ deploymentId, disabled, onCreated }: { deploymentId: number; disabled: boolean; onCreated: (key: CreatedDeploymentKey) => void }) {
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState('never');
  const [quota, setQuota] = useState<number | string>('');
  const create = useCreateDeploymentKey(deploymentId);

  return (
    <CreateDialog
      label="New key"
      title="Create a key for this deployment"
      testId="create-deployment-key"
      submitTestId="deployment-key-create-submit"
      disabled={disabled}
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
      <NameInput value={name} onChange={setName} testId="deployment-key-name-input" description="Who or what calls the API with it, e.g. “mobile app”" />
      <Select label="Expires" data={EXPIRY_OPTIONS} value={expiry} onChange={(next) => next && setExpiry(next)} allowDeselect={false} data-testid="deployment-key-expiry-input" />
      <NumberInput
        label="Quota per minute"
        description="Calls over it get 429 with Retry-After. Empty: no quota."
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
  return (
    <Modal opened={created !== null} onClose={onClose} title="Key created" closeOnClickOutside={false} closeOnEscape={false} size="lg">
      {created && (
        <Stack>
          <Alert color="yellow" variant="light" title="Copy this key now" data-testid="deployment-key-warning">
            This is the only time the key <b>{created.name}</b> is shown. Sampan stores only a hash of it; if you lose it, revoke it and create another.
          </Alert>
          <Code block fz="sm" data-testid="deployment-key-secret" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
            {created.key}
          </Code>
          <Text size="xs" c="dimmed">
            Send it as <Code>Authorization: Bearer &lt;key&gt;</Code> or <Code>X-Sampan-Key: &lt;key&gt;</Code>. The “Try it” tab of this page already has it.
          </Text>
          <Group justify="space-between">
            <CopyButton value={created.key}>
              {({ copied, copy }) => (
                <Button variant="light" color={copied ? 'teal' : 'blue'} onClick={copy} data-testid="deployment-key-copy">
                  {copied ? 'Copied' : 'Copy key'}
                </Button>
              )}
            </CopyButton>
            <Group>
              {onTry && (
                <Button variant="default" onClick={onTry} data-testid="deployment-key-try">
                  Try it now
                </Button>
              )}
              <Button onClick={onClose} data-testid="deployment-key-done">
                I have copied it
              </Button>
            </Group>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

export function ApiKeysPanel({ deploymentId, canEdit = true, onTry }: { deploymentId: number; canEdit?: boolean; onTry?: () => void }) {
  const { data, isPending, isError, error } = useDeploymentKeys(deploymentId);
  const revoke = useRevokeDeploymentKey(deploymentId);
  const [created, setCreated] = useState<CreatedDeploymentKey | null>(null);
  const [revoking, setRevoking] = useState<DeploymentKey | null>(null);

  const confirmRevoke = () => {
    if (!revoking) return;
    revoke.mutate(
      { deploymentId, keyId: revoking.id },
      { onSuccess: () => notifySuccess(`Key “${revoking.name}” revoked.`), onSettled: () => setRevoking(null) },
    );
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm" maw={640}>
          Keys let applications call this deployment's prediction API, and nothing else. Each can expire and have a quota per minute.
        </Text>
        <CreateKeyButton deploymentId={deploymentId} disabled={!canEdit} onCreated={setCreated} />
      </Group>
      {isPending && <Skeleton h={100} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {data && data.length === 0 && (
        <Paper withBorder p="xl" ta="center" data-testid="deployment-keys-empty">
          <Text c="dimmed">No keys yet: nobody can call this deployment.</Text>
        </Paper>
      )}
      {data && data.length > 0 && (
        <Paper withBorder>
          <Table verticalSpacing="sm" data-testid="deployment-keys-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Prefix</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Quota</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>Expires</Table.Th>
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
                        {status}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{key.quota_per_minute ? `${key.quota_per_minute}/min` : 'none'}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" data-testid={`deployment-key-last-used-${key.id}`}>
                        {key.last_used_at ? formatRelative(key.last_used_at) : 'never'}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{key.expires_at ? formatDateTime(key.expires_at) : 'never'}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Button
                        size="xs"
                        variant="subtle"
                        color="red"
                        disabled={!canEdit || status === 'revoked'}
                        onClick={() => setRevoking(key)}
                        data-testid={`deployment-key-revoke-${key.id}`}
                      >
                        Revoke
                      </Button>
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
      <Modal opened={revoking !== null} onClose={() => setRevoking(null)} title="Revoke key">
        <Stack>
          <Text>
            Revoke <b>{revoking?.name}</b>? Calls with it get 401 answers from now on. This cannot be undone.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRevoking(null)}>
              Keep it
            </Button>
            <Button color="red" loading={revoke.isPending} onClick={confirmRevoke} data-testid="deployment-key-revoke-confirm">
              Revoke
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
