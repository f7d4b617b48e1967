import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Stat } from '@/components/Stat';
import { formatNumber } from '@/lib/numbers';
import type { LabelingTask } from '../api/tasks';
import { TasksProgress } from './TasksProgress';
import { annotatorChartRows } from './tasksProgressRows';

/** A task's overview: its instructions, overall progress and each annotator's. */
export function TasksOverview({ task }: { task: LabelingTask }) {
  const { t } = useTranslation('labeling');
  const perAnnotator = task.progress.per_annotator;
  const rows = annotatorChartRows(perAnnotator);
  return (
    <Stack>
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <Stat label={t('overview.items')} value={formatNumber(task.progress.items)} testId="overview-items" />
        <Stat label={t('overview.submitted')} value={formatNumber(task.progress.submitted)} testId="overview-submitted" />
        <Stat label={t('overview.accepted')} value={formatNumber(task.progress.accepted)} testId="overview-accepted" />
        <Stat label={t('overview.rejected')} value={formatNumber(task.progress.rejected)} testId="overview-rejected" />
      </SimpleGrid>
      <TasksProgress counts={task.progress} testId="overview-progress" />
      {task.instructions && (
        <Paper withBorder p="md">
          <Title order={5} mb="xs">
            {t('overview.instructions')}
          </Title>
          <Text style={{ whiteSpace: 'pre-wrap' }} data-testid="overview-instructions">
            {task.instructions}
          </Text>
        </Paper>
      )}
      <Paper withBorder p="md" data-testid="overview-annotators">
        <Title order={5} mb="sm">
          {t('overview.perAnnotator')}
        </Title>
        {rows.length > 0 && (
          <BarChart
            h={Math.max(120, rows.length * 32 + 60)}
            data={rows}
            dataKey="name"
            type="stacked"
            orientation="vertical"
            withLegend
            series={[
              { name: 'accepted', label: t('overview.accepted'), color: 'teal.6' },
              { name: 'waiting', label: t('overview.waiting'), color: 'blue.6' },
              { name: 'toDo', label: t('overview.toDo'), color: 'gray.4' },
            ]}
            yAxisProps={{ interval: 0, width: 110 }}
            valueFormatter={(value) => formatNumber(value)}
            gridAxis="x"
          />
        )}
        <Table mt="md">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('agreement.columns.annotator')}</Table.Th>
              <Table.Th>{t('agreement.columns.assigned')}</Table.Th>
              <Table.Th>{t('agreement.columns.rejected')}</Table.Th>
              <Table.Th style={{ width: '45%' }}>{t('tasks.columns.progress')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {perAnnotator.map((entry) => (
              <Table.Tr key={entry.annotator} data-testid={`overview-annotator-${entry.annotator}`}>
                <Table.Td>{entry.username}</Table.Td>
                <Table.Td>{formatNumber(entry.assigned)}</Table.Td>
                <Table.Td>{formatNumber(entry.rejected)}</Table.Td>
                <Table.Td>
                  <TasksProgress counts={{ items: entry.assigned, submitted: entry.submitted, accepted: entry.accepted, rejected: 0 }} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
    </Stack>
  );
}
