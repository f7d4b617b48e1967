import { Alert, Badge, Button, Code, Group, Modal, Paper, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { translateDynamic } from '@/i18n';
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
  const { t } = useTranslation('tokens');

  const confirmRevoke = () => {
    if (!revoking) return;
    revokeMutation.mutate(revoking.id, {
      onSuccess: (token) => notifySuccess(t('revoke.done', { name: token.name })),
      onSettled: () => setRevoking(null),
    });
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm" maw={640}>
          <Trans t={t} i18nKey="intro" components={{ code: <Code /> }} />
        </Text>
        <CreateTokenButton onCreated={setCreated} />
      </Group>
      {isPending && <Skeleton h={120} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {data && data.results.length === 0 && (
        <Paper withBorder p="xl" ta="center" data-testid="tokens-empty">
          <Text c="dimmed">{t('empty')}</Text>
        </Paper>
      )}
      {data && data.results.length > 0 && (
        <Paper withBorder>
          <Table verticalSpacing="sm" data-testid="tokens-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('table.name')}</Table.Th>
                <Table.Th>{t('table.prefix')}</Table.Th>
                <Table.Th>{t('table.status')}</Table.Th>
                <Table.Th>{t('table.created')}</Table.Th>
                <Table.Th>{t('table.lastUsed')}</Table.Th>
                <Table.Th>{t('table.expires')}</Table.Th>
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
                      {translateDynamic(`tokens:status.${token.status}`, token.status)}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{formatDateTime(token.created_at)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{token.last_used_at ? formatRelative(token.last_used_at) : t('table.never')}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{token.expires_at ? formatDateTime(token.expires_at) : t('table.never')}</Text>
                  </Table.Td>
                  <Table.Td>
                    <WithReason
                      reason={
                        token.status !== 'active' &&
                        t('revoke.notActive', { status: translateDynamic(`tokens:status.${token.status}`, token.status) })
                      }
                    >
                      <Button
                        size="xs"
                        variant="subtle"
                        color="red"
                        disabled={token.status !== 'active'}
                        onClick={() => setRevoking(token)}
                        data-testid={`token-revoke-${token.id}`}
                      >
                        {t('revoke.button')}
                      </Button>
                    </WithReason>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
      )}

      <TokenCreatedModal token={created} onClose={() => setCreated(null)} />
      <Modal opened={revoking !== null} onClose={() => setRevoking(null)} title={t('revoke.title')}>
        <Stack>
          <Text>
            <Trans t={t} i18nKey="revoke.body" values={{ name: revoking?.name }} components={{ b: <b /> }} />
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRevoking(null)}>
              {t('revoke.keep')}
            </Button>
            <Button color="red" loading={revokeMutation.isPending} onClick={confirmRevoke} data-testid="token-revoke-confirm">
              {t('revoke.button')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
