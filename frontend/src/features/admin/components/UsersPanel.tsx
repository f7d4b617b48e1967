import { Alert, Badge, Button, Group, Modal, Paper, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { formatDateTime, formatRelative } from '@/lib/datetime';
import { errorMessage, notifySuccess } from '@/lib/notifications';
import type { AdminUser, UserAction } from '../api/users';
import { useUserAction, useUsers } from '../hooks/useUsers';
import { CreateUserButton } from './CreateUserButton';
import { ResetPasswordModal } from './ResetPasswordModal';

const DONE: Record<UserAction, 'deactivated' | 'reactivated' | 'madeAdmin' | 'removedAdmin'> = {
  deactivate: 'deactivated',
  reactivate: 'reactivated',
  'make-admin': 'madeAdmin',
  'remove-admin': 'removedAdmin',
};

function UserRow({
  user,
  meId,
  lastAdmin,
  onDeactivate,
  onResetPassword,
}: {
  user: AdminUser;
  meId: number;
  /** This user is the only active administrator. */
  lastAdmin: boolean;
  onDeactivate: (user: AdminUser) => void;
  onResetPassword: (user: AdminUser) => void;
}) {
  const { t } = useTranslation(['admin', 'common']);
  const actionMutation = useUserAction();
  const self = user.id === meId;
  const run = (action: UserAction) =>
    actionMutation.mutate(
      { id: user.id, action },
      { onSuccess: (updated) => notifySuccess(t(`users.done.${DONE[action]}`, { username: updated.username })) },
    );
  const busy = (action: UserAction) => actionMutation.isPending && actionMutation.variables?.action === action;

  const deactivateReason = lastAdmin ? t('users.reasons.lastAdmin') : self ? t('users.reasons.selfDeactivate') : null;
  const demoteReason = lastAdmin ? t('users.reasons.lastAdmin') : self ? t('users.reasons.selfDemote') : null;
  const promoteReason = user.is_active ? null : t('users.reasons.inactiveAdmin');

  return (
    <Table.Tr data-testid={`user-row-${user.id}`}>
      <Table.Td fw={500}>
        {user.username}
        {self && (
          <Text span c="dimmed" size="sm">
            {' '}({t('users.you')})
          </Text>
        )}
      </Table.Td>
      <Table.Td c="dimmed">{user.email || '—'}</Table.Td>
      <Table.Td>
        <Badge variant="light" color={user.is_staff ? 'grape' : 'gray'} data-testid={`user-role-${user.id}`}>
          {user.is_staff ? t('users.role.admin') : t('users.role.user')}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Badge variant="light" color={user.is_active ? 'teal' : 'red'} data-testid={`user-status-${user.id}`}>
          {user.is_active ? t('users.status.active') : t('users.status.inactive')}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{formatDateTime(user.date_joined)}</Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{user.last_login ? formatRelative(user.last_login) : t('users.table.never')}</Text>
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          {user.is_active ? (
            <WithReason reason={deactivateReason}>
              <Button
                size="xs"
                variant="subtle"
                color="red"
                disabled={!!deactivateReason}
                onClick={() => onDeactivate(user)}
                data-testid={`user-deactivate-${user.id}`}
              >
                {t('users.actions.deactivate')}
              </Button>
            </WithReason>
          ) : (
            <Button size="xs" variant="subtle" loading={busy('reactivate')} onClick={() => run('reactivate')} data-testid={`user-reactivate-${user.id}`}>
              {t('users.actions.reactivate')}
            </Button>
          )}
          {user.is_staff ? (
            <WithReason reason={demoteReason}>
              <Button
                size="xs"
                variant="subtle"
                disabled={!!demoteReason}
                loading={busy('remove-admin')}
                onClick={() => run('remove-admin')}
                data-testid={`user-remove-admin-${user.id}`}
              >
                {t('users.actions.removeAdmin')}
              </Button>
            </WithReason>
          ) : (
            <WithReason reason={promoteReason}>
              <Button
                size="xs"
                variant="subtle"
                disabled={!!promoteReason}
                loading={busy('make-admin')}
                onClick={() => run('make-admin')}
                data-testid={`user-make-admin-${user.id}`}
              >
                {t('users.actions.makeAdmin')}
              </Button>
            </WithReason>
          )}
          <Button size="xs" variant="subtle" onClick={() => onResetPassword(user)} data-testid={`user-reset-password-${user.id}`}>
            {t('users.actions.resetPassword')}
          </Button>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** Every account, for administrators: create, deactivate or reactivate, reset a password, make or remove administrators. */
export function UsersPanel({ meId }: { meId: number }) {
  const { t } = useTranslation(['admin', 'common']);
  const { data, isPending, isError, error } = useUsers();
  const deactivateMutation = useUserAction();
  const [deactivating, setDeactivating] = useState<AdminUser | null>(null);
  const [resetting, setResetting] = useState<AdminUser | null>(null);
  const activeAdmins = (data?.results ?? []).filter((user) => user.is_staff && user.is_active);

  const confirmDeactivate = () => {
    if (!deactivating) return;
    deactivateMutation.mutate(
      { id: deactivating.id, action: 'deactivate' },
      {
        onSuccess: (updated) => notifySuccess(t('users.done.deactivated', { username: updated.username })),
        onSettled: () => setDeactivating(null),
      },
    );
  };

  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        <Text c="dimmed" size="sm" maw={720}>
          {t('users.description')}
        </Text>
        <CreateUserButton />
      </Group>
      {isPending && <Skeleton h={160} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {data && data.results.length === 0 && (
        <Paper withBorder p="xl" ta="center">
          <Text c="dimmed">{t('users.empty')}</Text>
        </Paper>
      )}
      {data && data.results.length > 0 && (
        <Paper withBorder style={{ overflowX: 'auto' }}>
          <Table verticalSpacing="xs" data-testid="users-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('users.table.username')}</Table.Th>
                <Table.Th>{t('users.table.email')}</Table.Th>
                <Table.Th>{t('users.table.role')}</Table.Th>
                <Table.Th>{t('users.table.status')}</Table.Th>
                <Table.Th>{t('users.table.joined')}</Table.Th>
                <Table.Th>{t('users.table.lastLogin')}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.results.map((user) => (
                <UserRow
                  key={user.id}
                  user={user}
                  meId={meId}
                  lastAdmin={activeAdmins.length === 1 && activeAdmins[0].id === user.id}
                  onDeactivate={setDeactivating}
                  onResetPassword={setResetting}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
      )}
      <Modal opened={deactivating !== null} onClose={() => setDeactivating(null)} title={t('users.deactivate.title')}>
        <Stack>
          <Text>
            <Trans t={t} i18nKey="users.deactivate.body" values={{ username: deactivating?.username }} components={{ b: <b /> }} />
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeactivating(null)}>
              {t('common:actions.cancel')}
            </Button>
            <Button color="red" loading={deactivateMutation.isPending} onClick={confirmDeactivate} data-testid="user-deactivate-confirm">
              {t('users.actions.deactivate')}
            </Button>
          </Group>
        </Stack>
      </Modal>
      <ResetPasswordModal user={resetting} onClose={() => setResetting(null)} />
    </Stack>
  );
}
