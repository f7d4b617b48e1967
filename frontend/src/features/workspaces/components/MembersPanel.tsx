import { Alert, Button, Group, Modal, Paper, Select, Skeleton, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { translateDynamic } from '@/i18n';
import { formatDateTime, formatRelative } from '@/lib/datetime';
import { errorMessage, notifySuccess } from '@/lib/notifications';
import type { Membership } from '../api/members';
import type { WorkspaceRole } from '../api/workspaces';
import { useInviteUser, useRevokeInvitation, useWorkspaceInvitations } from '../hooks/useInvitations';
import { useChangeMemberRole, useMembers, useRemoveMember } from '../hooks/useMembers';

const ROLES: WorkspaceRole[] = ['owner', 'editor', 'viewer', 'annotator'];

/** The roles as Select options, in the UI's language. */
function useRoleOptions() {
  const { t } = useTranslation(['workspaces', 'common']);
  return ROLES.map((value) => ({ value, label: t(`roleOptions.${value}`) }));
}

/** Invite an existing user by username; they join with the role once they accept. */
function InviteForm({ workspaceId, disabled }: { workspaceId: number; disabled: boolean }) {
  const { t } = useTranslation(['workspaces', 'common']);
  const roleOptions = useRoleOptions();
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<WorkspaceRole>('viewer');
  const inviteMutation = useInviteUser(workspaceId);
  const ownerOnly = disabled ? t('members.ownerOnly') : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!username.trim()) return;
    inviteMutation.mutate(
      { username: username.trim(), role },
      {
        onSuccess: (invitation) => {
          notifySuccess(
            t('invite.sent', { username: invitation.user.username, role: translateDynamic(`workspaces:roles.${invitation.role}`, invitation.role) }),
          );
          setUsername('');
        },
      },
    );
  };

  return (
    <form onSubmit={submit} data-testid="invite-form">
      <Group align="flex-end" gap="sm">
        <WithReason reason={ownerOnly}>
          <TextInput
            label={t('invite.label')}
            placeholder={t('invite.placeholder')}
            value={username}
            onChange={(event) => setUsername(event.currentTarget.value)}
            disabled={disabled}
            data-testid="invite-username-input"
          />
        </WithReason>
        <WithReason reason={ownerOnly}>
          <Select
            label={t('invite.role')}
            data={roleOptions}
            value={role}
            onChange={(next) => next && setRole(next as WorkspaceRole)}
            allowDeselect={false}
            disabled={disabled}
            w={130}
            data-testid="invite-role-input"
          />
        </WithReason>
        <WithReason reason={ownerOnly ?? (!username.trim() ? t('invite.needUsername') : null)}>
          <Button type="submit" disabled={disabled || !username.trim()} loading={inviteMutation.isPending} data-testid="invite-submit">
            {t('invite.submit')}
          </Button>
        </WithReason>
      </Group>
      <Text size="xs" c="dimmed" mt={4}>
        {t('invite.help')}
      </Text>
    </form>
  );
}

/** The workspace's pending invitations; owners may revoke them. */
function PendingInvitations({ workspaceId, canManage }: { workspaceId: number; canManage: boolean }) {
  const { t } = useTranslation(['workspaces', 'common']);
  const { data } = useWorkspaceInvitations(workspaceId);
  const revokeMutation = useRevokeInvitation(workspaceId);
  if (!data || data.results.length === 0) return null;
  return (
    <Stack gap="xs">
      <Title order={5}>{t('invite.pendingTitle')}</Title>
      <Paper withBorder>
        <Table verticalSpacing="xs" data-testid="invitations-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('members.user')}</Table.Th>
              <Table.Th>{t('members.role')}</Table.Th>
              <Table.Th>{t('invite.invitedBy')}</Table.Th>
              <Table.Th>{t('invite.invited')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.results.map((invitation) => (
              <Table.Tr key={invitation.id} data-testid={`invitation-row-${invitation.id}`}>
                <Table.Td fw={500}>{invitation.user.username}</Table.Td>
                <Table.Td>{translateDynamic(`workspaces:roles.${invitation.role}`, invitation.role)}</Table.Td>
                <Table.Td>{invitation.invited_by?.username ?? '—'}</Table.Td>
                <Table.Td>
                  <Text size="sm">{formatRelative(invitation.created_at)}</Text>
                </Table.Td>
                <Table.Td>
                  <WithReason reason={canManage ? null : t('members.ownerOnly')}>
                    <Button
                      size="xs"
                      variant="subtle"
                      color="red"
                      disabled={!canManage}
                      loading={revokeMutation.isPending && revokeMutation.variables === invitation.id}
                      onClick={() =>
                        revokeMutation.mutate(invitation.id, {
                          onSuccess: () => notifySuccess(t('invite.revoked', { username: invitation.user.username })),
                        })
                      }
                      data-testid={`invitation-revoke-${invitation.id}`}
                    >
                      {t('invite.revoke')}
                    </Button>
                  </WithReason>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
    </Stack>
  );
}

function MemberRow({ workspaceId, membership, canManage, onRemove }: {
  workspaceId: number;
  membership: Membership;
  canManage: boolean;
  onRemove: (membership: Membership) => void;
}) {
  const { t } = useTranslation(['workspaces', 'common']);
  const roleOptions = useRoleOptions();
  const changeRole = useChangeMemberRole(workspaceId);
  const ownerOnly = canManage ? null : t('members.ownerOnly');
  return (
    <Table.Tr data-testid={`member-row-${membership.id}`}>
      <Table.Td fw={500}>{membership.user.username}</Table.Td>
      <Table.Td c="dimmed">{membership.user.email || '—'}</Table.Td>
      <Table.Td>
        <WithReason reason={ownerOnly}>
          <Select
            aria-label={t('members.roleOf', { username: membership.user.username })}
            data={roleOptions}
            value={membership.role}
            allowDeselect={false}
            disabled={!canManage || changeRole.isPending}
            onChange={(next) => {
              if (next && next !== membership.role) {
                changeRole.mutate({ membershipId: membership.id, role: next as WorkspaceRole });
              }
            }}
            size="xs"
            w={120}
            data-testid={`member-role-${membership.id}`}
          />
        </WithReason>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{formatDateTime(membership.created_at)}</Text>
      </Table.Td>
      <Table.Td>
        <WithReason reason={ownerOnly}>
          <Button
            size="xs"
            variant="subtle"
            color="red"
            disabled={!canManage}
            onClick={() => onRemove(membership)}
            data-testid={`member-remove-${membership.id}`}
          >
            {t('members.remove')}
          </Button>
        </WithReason>
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * Members of a workspace and its pending invitations. Owners (`canManage`) invite users by username,
 * revoke invitations, change roles and remove members; the server has the last word.
 */
export function MembersPanel({ workspaceId, canManage }: { workspaceId: number; canManage: boolean }) {
  const { t } = useTranslation(['workspaces', 'common']);
  const { data, isPending, isError, error } = useMembers(workspaceId);
  const removeMutation = useRemoveMember(workspaceId);
  const [removing, setRemoving] = useState<Membership | null>(null);

  const confirmRemove = () => {
    if (!removing) return;
    removeMutation.mutate(removing.id, {
      onSuccess: () => notifySuccess(t('members.removed', { username: removing.user.username })),
      onSettled: () => setRemoving(null),
    });
  };

  return (
    <Stack>
      <InviteForm workspaceId={workspaceId} disabled={!canManage} />
      <PendingInvitations workspaceId={workspaceId} canManage={canManage} />
      {isPending && <Skeleton h={120} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {data && (
        <Paper withBorder>
          <Table verticalSpacing="xs" data-testid="members-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('members.user')}</Table.Th>
                <Table.Th>{t('members.email')}</Table.Th>
                <Table.Th>{t('members.role')}</Table.Th>
                <Table.Th>{t('members.since')}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.results.map((membership) => (
                <MemberRow
                  key={membership.id}
                  workspaceId={workspaceId}
                  membership={membership}
                  canManage={canManage}
                  onRemove={setRemoving}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
      )}
      <Modal opened={removing !== null} onClose={() => setRemoving(null)} title={t('members.removeTitle')}>
        <Stack>
          <Text>
            <Trans t={t} i18nKey="members.removeBody" values={{ username: removing?.user.username }} components={{ b: <b /> }} />
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRemoving(null)}>
              {t('common:actions.cancel')}
            </Button>
            <Button color="red" loading={removeMutation.isPending} onClick={confirmRemove} data-testid="member-remove-confirm">
              {t('members.remove')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
