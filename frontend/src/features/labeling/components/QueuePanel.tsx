import { Alert, Anchor, Badge, Button, Card, Group, Image, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { QueryState } from '@/components/QueryState';
import { formatNumber } from '@/lib/numbers';
import type { Assignment } from '../api/assignments';
import { useAssignments } from '../hooks/useTasksAssignments';
import { isToDo, personalProgress, queueOrder, STATUS_COLORS } from './queueOrder';

type QueueEntry = Assignment;

/** The sample as a queue row names it: its file name, else the start of its text, else its number. */
function sampleName(entry: QueueEntry): string {
  return entry.sample.original_name || entry.sample.text.slice(0, 80) || String(entry.sample.id);
}

/** One task in the caller's queue: personal progress, what to label next (rejected work first) and what is done. */
function QueueTask({ taskId, entries, progress }: { taskId: number; entries: QueueEntry[]; progress: { done: number; total: number; rejected: number } }) {
  const { t } = useTranslation('labeling');
  const ordered = queueOrder(entries);
  // A closed task takes no more answers: its queue is shown, not offered.
  const closed = entries[0]?.task.status === 'closed';
  const next = closed ? undefined : ordered.find(isToDo);
  const name = entries[0]?.task.name ?? t('queue.taskFallback', { id: taskId });
  return (
    <Card withBorder data-testid={`queue-task-${taskId}`}>
      <Group justify="space-between" mb="sm">
        <Stack gap={2}>
          <Title order={4}>{name}</Title>
          <Text size="sm" c="dimmed" data-testid={`queue-progress-${taskId}`}>
            {t('queue.progress', { done: formatNumber(progress.done), total: formatNumber(progress.total) })}
          </Text>
        </Stack>
        {next ? (
          <Button component={Link} to={`/labeling/assignments/${next.id}`} data-testid={`queue-start-${taskId}`}>
            {progress.done > 0 || progress.rejected > 0 ? t('queue.continue') : t('queue.start')}
          </Button>
        ) : closed ? (
          <Badge color="gray" variant="light" data-testid={`queue-closed-${taskId}`}>
            {t('tasks.status.closed')}
          </Badge>
        ) : (
          <Badge color="teal" variant="light">
            {t('queue.allDone')}
          </Badge>
        )}
      </Group>
      <Progress value={progress.total ? (progress.done / progress.total) * 100 : 0} size="md" mb="sm" />
      {progress.rejected > 0 && (
        <Alert color="red" variant="light" mb="sm" data-testid={`queue-rejected-${taskId}`}>
          {t('queue.rejectedHint', { count: progress.rejected })}
        </Alert>
      )}
      <Table verticalSpacing={4} data-testid={`queue-table-${taskId}`}>
        <Table.Tbody>
          {ordered.map((entry) => (
            <Table.Tr key={entry.id} data-testid={`queue-row-${entry.id}`} data-status={entry.status}>
              <Table.Td w={130}>
                <Badge variant="light" color={STATUS_COLORS[entry.status] ?? 'gray'}>
                  {t(`queue.status.${entry.status}`)}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Group gap="sm" wrap="nowrap">
                  {entry.sample.thumbnail && <Image src={entry.sample.thumbnail} alt="" w={32} h={32} fit="contain" radius="xs" style={(entry.sample.width ?? 0) < 64 ? { imageRendering: 'pixelated' } : undefined} />}
                  <Anchor component={Link} to={`/labeling/assignments/${entry.id}`} size="sm">
                    {sampleName(entry)}
                  </Anchor>
                </Group>
              </Table.Td>
              <Table.Td>
                {entry.status === 'rejected' && entry.comment && (
                  <Text size="sm" c="red" data-testid={`queue-comment-${entry.id}`}>
                    {t('queue.reviewerSays', { comment: entry.comment })}
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}

/**
 * "My labeling": the caller's tasks, each with their own progress and their queue, rejected work
 * (with the reviewer's comment) first, then what is left to label, then what they submitted.
 */
export function QueuePanel() {
  const { t } = useTranslation('labeling');
  const assignments = useAssignments(null);
  if (!assignments.data) return <QueryState isPending={assignments.isPending} error={assignments.error} />;
  const entries = assignments.data.results;
  if (entries.length === 0)
    return (
      <Text c="dimmed" data-testid="queue-empty">
        {t('queue.empty')}
      </Text>
    );
  const progress = personalProgress(entries);
  const byTask = new Map<number, QueueEntry[]>();
  for (const entry of entries) byTask.set(entry.task.id, [...(byTask.get(entry.task.id) ?? []), entry]);
  // Tasks with work to do first, then by their order in the list (newest task first from the server).
  const taskIds = [...byTask.keys()].sort((a, b) => Number(!byTask.get(a)!.some(isToDo)) - Number(!byTask.get(b)!.some(isToDo)));
  return (
    <Stack data-testid="queue">
      {taskIds.map((taskId) => (
        <QueueTask key={taskId} taskId={taskId} entries={byTask.get(taskId)!} progress={progress.get(taskId)!} />
      ))}
    </Stack>
  );
}
