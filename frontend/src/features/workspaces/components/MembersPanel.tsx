import { Alert, Button, Group, Modal, Paper, Select, Skeleton, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage, notifySuccess } from '@/lib/notifications';
import type { Membership } from '../api/members';
import type { WorkspaceRole } from '../api/workspaces';
import { useAddMember, useChangeMemberRole, useMembers, useRemoveMember } from '../hooks/useMembers';

const ROLE_OPTIONS: { value: WorkspaceRole; label: string }[] = [
  { value: 'owner', label: 'Owner' },
  { value: 'editor', label: 'Editor' },
  { value: 'viewer', label: 'Viewer' },
];
const OWNER_ONLY = 'Only workspace owners can manage members';

function AddMemberForm({ workspaceId, disabled }: { workspaceId: number; disabled: boolean }) {
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<WorkspaceRole>('viewer');
  const addMutation = useAddMember(workspaceId);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    addMutation.mutate(
      { username: username.trim(), role },
      {
        onSuccess: (membership) => {
          notifySuccess(`${membership.user.username} added as ${membership.role}.`);
          setUsername('');
        },
      },
    );
  };

  return (
    <form onSubmit={submit}>
      <Group align="flex-end" gap="sm">
        <TextInput
          label="Add member"
          placeholder="username"
          value={username}
          onChange={(event) => setUsername(event.currentTarget.value)}
          disabled={disabled}
          data-testid="member-username-input"
        />
        <Select
          label="Role"
          data={ROLE_OPTIONS}
          value={role}
          onChange={(next) => next && setRole(next as WorkspaceRole)}
          allowDeselect={false}
          disabled={disabled}
          w={130}
          data-testid="member-role-input"
        />
        <Tooltip label={OWNER_ONLY} disabled={!disabled}>
          <Button type="submit" disabled={disabled || !username.trim()} loading={addMutation.isPending} data-testid="member-add">
            Add
          </Button>
        </Tooltip>
      </Group>
    </form>
  );
}

function MemberRow({ workspaceId, membership, canManage, onRemove }: {
  workspaceId: number;
  membership: Membership;
  canManage: boolean;
  onRemove: (membership: Membership) => void;
}) {
  const changeRole = useChangeMemberRole(workspaceId);
  return (
    <Table.Tr data-testid={`member-row-${membership.id}`}>
      <Table.Td fw={500}>{membership.user.username}</Table.Td>
      <Table.Td c="dimmed">{membership.user.email || '—'}</Table.Td>
      <Table.Td>
        <Select
          aria-label={`Role of ${membership.user.username}`}
          data={ROLE_OPTIONS}
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
      </Table.Td>
      <Table.Td>
        <Text size="sm">{formatDateTime(membership.created_at)}</Text>
      </Table.Td>
      <Table.Td>
        <Tooltip label={OWNER_ONLY} disabled={canManage}>
          <Button
            size="xs"
            variant="subtle"
            color="red"
            disabled={!canManage}
            onClick={() => onRemove(membership)}
            data-testid={`member-remove-${membership.id}`}
          >
            Remove
          </Button>
        </Tooltip>
      </Table.Td>
    </Table.Tr>
  );
}

/** Members of a workspace; changing them is for owners (`canManage`), and the server has the last word. */
export function MembersPanel({ workspaceId, canManage }: { workspaceId: number; canManage: boolean }) {
  const { data, isPending, isError, error } = useMembers(workspaceId);
  const removeMutation = useRemoveMember(workspaceId);
  const [removing, setRemoving] = useState<Membership | null>(null);

  const confirmRemove = () => {
    if (!removing) return;
    removeMutation.mutate(removing.id, {
      onSuccess: () => notifySuccess(`${removing.user.username} removed.`),
      onSettled: () => setRemoving(null),
    });
  };

  return (
    <Stack>
      <AddMemberForm workspaceId={workspaceId} disabled={!canManage} />
      {isPending && <Skeleton h={120} />}
      {isError && <Alert color="red">{errorMessage(error)}</Alert>}
      {data && (
        <Paper withBorder>
          <Table verticalSpacing="xs" data-testid="members-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>User</Table.Th>
                <Table.Th>Email</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>Member since</Table.Th>
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
      <Modal opened={removing !== null} onClose={() => setRemoving(null)} title="Remove member">
        <Stack>
          <Text>
            Remove <b>{removing?.user.username}</b> from this workspace? They lose access to its projects and jobs.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRemoving(null)}>
              Cancel
            </Button>
            <Button color="red" loading={removeMutation.isPending} onClick={confirmRemove} data-testid="member-remove-confirm">
              Remove
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
