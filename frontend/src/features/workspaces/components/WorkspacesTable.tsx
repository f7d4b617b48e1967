import { Alert, Anchor, Paper, Skeleton, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatDateTime } from '@/lib/datetime';
import { formatNumber } from '@/lib/numbers';
import { errorMessage } from '@/lib/notifications';
import { useWorkspaces } from '../hooks/useWorkspaces';
import { RoleBadge } from './RoleBadge';

export function WorkspacesTable() {
  const { data, isPending, isError, error } = useWorkspaces();
  const { t } = useTranslation('workspaces');
  if (isPending) return <Skeleton h={160} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  if (data.results.length === 0) {
    return (
      <Paper withBorder p="xl" ta="center" data-testid="workspaces-empty">
        <Text fw={500}>{t('empty.title')}</Text>
        <Text c="dimmed" size="sm">
          {t('empty.hint')}
        </Text>
      </Paper>
    );
  }
  return (
    <Paper withBorder>
      <Table highlightOnHover verticalSpacing="sm" data-testid="workspaces-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('table.name')}</Table.Th>
            <Table.Th>{t('table.description')}</Table.Th>
            <Table.Th>{t('table.yourRole')}</Table.Th>
            <Table.Th>{t('table.members')}</Table.Th>
            <Table.Th>{t('table.created')}</Table.Th>
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
              <Table.Td data-testid={`workspace-members-${workspace.id}`}>{formatNumber(workspace.member_count)}</Table.Td>
              <Table.Td>
                <Text size="sm">{formatDateTime(workspace.created_at)}</Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {data.count > data.results.length && (
        <Text size="xs" c="dimmed" p="sm">
          {t('table.showing', { shown: data.results.length, count: data.count })}
        </Text>
      )}
    </Paper>
  );
}
