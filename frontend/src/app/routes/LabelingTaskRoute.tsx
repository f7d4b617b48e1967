import { Anchor, Badge, Breadcrumbs, Button, Group, Stack, Tabs, Text, Title, Tooltip } from '@mantine/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { QueryState } from '@/components/QueryState';
import { useDataset } from '@/features/datasets';
import { AgreementPanel, ReviewPanel, TasksOverview, useCloseTask, useTask } from '@/features/labeling';
import { useWorkspace } from '@/features/workspaces';

const TABS = ['overview', 'review', 'agreement'] as const;

/** `/labeling-tasks/:taskId/:tab?`: a labeling task's progress per annotator, its review and the annotators' agreement. */
export function LabelingTaskRoute() {
  const { t } = useTranslation('labeling');
  const params = useParams();
  const navigate = useNavigate();
  const taskId = Number(params.taskId);

  const task = useTask(taskId);
  const datasetId = task.data?.dataset ?? Number.NaN;
  const dataset = useDataset(datasetId);
  const workspace = useWorkspace(dataset.data?.workspace ?? Number.NaN);
  const close = useCloseTask(taskId);
  const labelNames = useMemo(() => new Map((task.data?.labels ?? []).map((label) => [label.id, { name: label.name, color: label.color }])), [task.data?.labels]);
  if (!Number.isInteger(taskId)) return <NotFound what={t('taskPage.what')} />;
  if (!task.data) return <QueryState isPending={task.isPending} error={task.error} what={t('taskPage.what')} />;

  const role = workspace.data?.role;
  const canReview = role === 'owner' || role === 'editor';
  const open = task.data.status === 'open';
  // Owners, editors and viewers read the answers and the agreement (only owners and editors give
  // verdicts); an annotator who opens their task sees its overview.
  const canRead = canReview || role === 'viewer';
  const tabs = canRead ? TABS : (['overview'] as const);
  const tab = tabs.find((item) => item === params.tab) ?? 'overview';
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to={`/datasets/${task.data.dataset}/tasks`}>
          {dataset.data?.name ?? t('taskPage.datasetFallback', { id: task.data.dataset })}
        </Anchor>
        <span>{task.data.name}</span>
      </Breadcrumbs>
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Group gap="sm">
            <Title order={2} data-testid="task-title">
              {task.data.name}
            </Title>
            <Badge variant="light" color={open ? 'blue' : 'gray'} data-testid="task-status">
              {t(`tasks.status.${task.data.status}` as 'tasks.status.open')}
            </Badge>
          </Group>
          <Group gap="md">
            <Text c="dimmed" size="sm">
              {t('taskPage.annotators', { names: task.data.annotators.map((annotator) => annotator.username).join(', ') })}
            </Text>
            <Text c="dimmed" size="sm">
              {t('taskPage.overlap', { count: task.data.overlap })}
            </Text>
          </Group>
        </Stack>
        {canReview && open && (
          <Tooltip label={t('taskPage.closeHint')}>
            <Button variant="default" onClick={() => close.mutate()} loading={close.isPending} data-testid="task-close">
              {t('taskPage.close')}
            </Button>
          </Tooltip>
        )}
      </Group>
      <Tabs value={tab} onChange={(value) => navigate(`/labeling-tasks/${taskId}/${value}`)} keepMounted={false}>
        <Tabs.List>
          {tabs.map((value) => (
            <Tabs.Tab key={value} value={value} data-testid={`task-tab-${value}`}>
              {t(`taskPage.tabs.${value}`)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="overview" pt="md">
          <TasksOverview task={task.data} />
        </Tabs.Panel>
        {canRead && (
          <>
            <Tabs.Panel value="review" pt="md">
              <ReviewPanel taskId={taskId} datasetId={task.data.dataset} labels={labelNames} canReview={canReview} />
            </Tabs.Panel>
            <Tabs.Panel value="agreement" pt="md">
              <AgreementPanel taskId={taskId} taskType={task.data.task_type} />
            </Tabs.Panel>
          </>
        )}
      </Tabs>
    </Stack>
  );
}
