import { Anchor, Badge, Group, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { QueryState } from '@/components/QueryState';
import { useLabels } from '@/features/datasets';
import { useMembers } from '@/features/workspaces';
import { formatDateTime } from '@/lib/datetime';
import { useTasks } from '../hooks/useTasks';
import { TasksCreateDialog } from './TasksCreateDialog';
import { TasksProgress } from './TasksProgress';

/**
 * The dataset's "Tasks" tab: its labeling tasks with their progress, and (owners and editors) a new
 * task. A task opens its page: progress per annotator, review, agreement.
 */
export function TasksPanel({ datasetId, workspaceId, canEdit }: { datasetId: number; workspaceId: number; canEdit: boolean }) {
  const { t } = useTranslation('labeling');
  const navigate = useNavigate();
  const tasks = useTasks(datasetId);
  const memberships = useMembers(canEdit ? workspaceId : Number.NaN);
  const labels = useLabels(datasetId);
  // Annotators, editors and owners can be given samples (a viewer cannot label).
  const members = (memberships.data?.results ?? [])
    .filter((membership) => membership.role !== 'viewer')
    .map((membership) => ({ id: membership.user.id, username: membership.user.username, role: membership.role }));
  return (
    <Stack>
      <Group justify="space-between">
        <Text c="dimmed" size="sm">
          {t('tasks.intro')}
        </Text>
        {canEdit && <TasksCreateDialog datasetId={datasetId} members={members} labels={labels.data ?? []} onCreated={(task) => navigate(`/labeling-tasks/${task.id}`)} />}
      </Group>
      {!tasks.data ? (
        <QueryState isPending={tasks.isPending} error={tasks.error} />
      ) : tasks.data.results.length === 0 ? (
        <Text c="dimmed" data-testid="tasks-empty">
          {t('tasks.empty')}
        </Text>
      ) : (
        <Table data-testid="tasks-table" verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('tasks.columns.name')}</Table.Th>
              <Table.Th>{t('tasks.columns.annotators')}</Table.Th>
              <Table.Th>{t('tasks.columns.overlap')}</Table.Th>
              <Table.Th style={{ width: '35%' }}>{t('tasks.columns.progress')}</Table.Th>
              <Table.Th>{t('tasks.columns.status')}</Table.Th>
              <Table.Th>{t('tasks.columns.created')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tasks.data.results.map((task) => (
              <Table.Tr key={task.id} data-testid={`task-row-${task.id}`}>
                <Table.Td>
                  <Anchor component={Link} to={`/labeling-tasks/${task.id}`}>
                    {task.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>{task.annotators.map((annotator) => annotator.username).join(', ')}</Table.Td>
                <Table.Td>{task.overlap}</Table.Td>
                <Table.Td>
                  <TasksProgress counts={task.progress} testId={`task-progress-${task.id}`} />
                </Table.Td>
                <Table.Td>
                  <Badge variant="light" color={task.status === 'open' ? 'blue' : 'gray'}>
                    {t(`tasks.status.${task.status}`)}
                  </Badge>
                </Table.Td>
                <Table.Td>{formatDateTime(task.created_at)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
