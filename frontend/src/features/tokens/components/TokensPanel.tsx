import { Alert, Badge, Button, Code, Group, Modal, Paper, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { formatDateTime, formatRelative } from '@/lib/datetime';
import { errorMessage, notifySuccess } from '@/lib/notifications';
import { statusColor } from '@/lib/statusColors';
import type { CreatedToken, Token } from '../api/tokens';
import { useRevokeToken, useTokens } from '../hooks/useTokens';
import { CreateTokenButton } from './CreateTokenButton';
import { TokenCreatedModal } from './TokenCreatedModal';

export function TokensPanel() {
  const { data, isPending, isError, error } = useTokens();
  const revokeMutation = useRevokeToken();
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [revoking, setRevoking] = useState<Token | null>(null);

  const confirmRevoke = () => {
    if (!revoking) return;
    revokeMutation.mutate(revoking.id, {
      onSuccess: (token) => notifySuccess(`Token “${token.name}” revoked.`),
      onSettled: () => setRevoking(null),
    });
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm" maw={640}>
          Personal API tokens let scripts, notebooks and the <Code>sampan</Code> SDK act as you. Send one as{' '}
          <Code>Authorization: Bearer &lt;key&gt;</Code>.
        </Text>
        <CreateTokenButton onCreated={setCreated} />
      </Group>
      {isPending && <Skeleton h={120} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {data && data.results.length === 0 && (
        <Paper withBorder p="xl" ta="center" data-testid="tokens-empty">
          <Text c="dimmed">No tokens yet.</Text>
        </Paper>
      )}
      {data && data.results.length > 0 && (
        <Paper withBorder>
          <Table verticalSpacing="sm" data-testid="tokens-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Prefix</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>Expires</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.results.map((token) => (
                <Table.Tr key={token.id} data-testid={`token-row-${token.id}`}>
                  <Table.Td fw={500}>{token.name}</Table.Td>
                  <Table.Td>
                    <Code>{token.prefix}…</Code>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={statusColor('key', token.status)} data-testid={`token-status-${token.id}`}>
                      {token.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{formatDateTime(token.created_at)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{token.last_used_at ? formatRelative(token.last_used_at) : 'never'}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{token.expires_at ? formatDateTime(token.expires_at) : 'never'}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Button
                      size="xs"
                      variant="subtle"
                      color="red"
                      disabled={token.status !== 'active'}
                      onClick={() => setRevoking(token)}
                      data-testid={`token-revoke-${token.id}`}
                    >
                      Revoke
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
      )}

      <TokenCreatedModal token={created} onClose={() => setCreated(null)} />
      <Modal opened={revoking !== null} onClose={() => setRevoking(null)} title="Revoke token">
        <Stack>
          <Text>
            Revoke <b>{revoking?.name}</b>? Anything still using it will get 401 answers from now on. This cannot be undone.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRevoking(null)}>
              Keep it
            </Button>
            <Button color="red" loading={revokeMutation.isPending} onClick={confirmRevoke} data-testid="token-revoke-confirm">
              Revoke
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
