import { Alert, Anchor, Paper, Skeleton, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { useProjects } from '../hooks/useProjects';

export function ProjectsTable({ workspaceId }: { workspaceId: number }) {
  const { data, isPending, isError, error } = useProjects(workspaceId);
  const { t } = useTranslation('projects');
  if (isPending) return <Skeleton h={120} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  if (data.results.length === 0) {
    return (
      <Paper withBorder p="xl" ta="center" data-testid="projects-empty">
        <Text fw={500}>{t('empty.title')}</Text>
        <Text c="dimmed" size="sm">
          {t('empty.hint')}
        </Text>
      </Paper>
    );
  }
  return (
    <Paper withBorder>
      <Table highlightOnHover verticalSpacing="sm" data-testid="projects-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('table.name')}</Table.Th>
            <Table.Th>{t('table.description')}</Table.Th>
            <Table.Th>{t('table.createdBy')}</Table.Th>
            <Table.Th>{t('table.created')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data.results.map((project) => (
            <Table.Tr key={project.id} data-testid={`project-row-${project.id}`}>
              <Table.Td>
                <Anchor component={Link} to={`/projects/${project.id}`} fw={500} data-testid={`project-link-${project.id}`}>
                  {project.name}
                </Anchor>
              </Table.Td>
              <Table.Td>
                <Text size="sm" c="dimmed" lineClamp={1}>
                  {project.description || '—'}
                </Text>
              </Table.Td>
              <Table.Td>{String(project.created_by ?? '—')}</Table.Td>
              <Table.Td>
                <Text size="sm">{formatDateTime(project.created_at)}</Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
