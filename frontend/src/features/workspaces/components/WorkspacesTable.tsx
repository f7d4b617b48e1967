import { Alert, Anchor, Paper, Skeleton, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { useWorkspaces } from '../hooks/useWorkspaces';
import { RoleBadge } from './RoleBadge';

export function WorkspacesTable() {
  const { data, isPending, isError, error } = useWorkspaces();
  if (isPending) return <Skeleton h={160} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  if (data.results.length === 0) {
    return (
      <Paper withBorder p="xl" ta="center" data-testid="workspaces-empty">
        <Text fw={500}>No workspaces yet</Text>
        <Text c="dimmed" size="sm">
          A workspace holds projects, datasets and jobs, and the people who may use them.
        </Text>
      </Paper>
    );
  }
  return (
    <Paper withBorder>
      <Table highlightOnHover verticalSpacing="sm" data-testid="workspaces-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Description</Table.Th>
            <Table.Th>Your role</Table.Th>
            <Table.Th>Members</Table.Th>
            <Table.Th>Created</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data.results.map((workspace) => (
            <Table.Tr key={workspace.id} data-testid={`workspace-row-${workspace.id}`}>
              <Table.Td>
                <Anchor component={Link} to={`/workspaces/${workspace.id}`} fw={500} data-testid={`workspace-link-${workspace.id}`}>
                  {workspace.name}
                </Anchor>
              </Table.Td>
              <Table.Td>
                <Text size="sm" c="dimmed" lineClamp={1}>
                  {workspace.description || '—'}
                </Text>
              </Table.Td>
              <Table.Td>
                <RoleBadge role={workspace.role} />
              </Table.Td>
              <Table.Td>{workspace.member_count}</Table.Td>
              <Table.Td>
                <Text size="sm">{formatDateTime(workspace.created_at)}</Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {data.count > data.results.length && (
        <Text size="xs" c="dimmed" p="sm">
          Showing {data.results.length} of {data.count} workspaces.
        </Text>
      )}
    </Paper>
  );
}
