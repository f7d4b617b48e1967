import { Group, Progress, Text, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '@/lib/numbers';
import { progressSections, type ProgressCounts } from './tasksProgressRows';

/** A task's (or an annotator's) progress: one bar with accepted, waiting for review and rejected, and "submitted / items". */
export function TasksProgress({ counts, testId }: { counts: ProgressCounts; testId?: string }) {
  const { t } = useTranslation('labeling');
  const sections = progressSections(counts);
  return (
    <Group gap="xs" wrap="nowrap" data-testid={testId}>
      <Progress.Root size="lg" style={{ flex: 1, minWidth: 120 }}>
        <Tooltip label={t('tasks.progress.accepted', { count: counts.accepted })}>
          <Progress.Section value={sections.accepted} color="teal" />
        </Tooltip>
        <Tooltip label={t('tasks.progress.waiting', { count: Math.max(0, counts.submitted - counts.accepted) })}>
          <Progress.Section value={sections.waiting} color="blue" />
        </Tooltip>
        <Tooltip label={t('tasks.progress.rejected', { count: counts.rejected })}>
          <Progress.Section value={sections.rejected} color="red" />
        </Tooltip>
      </Progress.Root>
      <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }} data-testid={testId ? `${testId}-text` : undefined}>
        {t('tasks.progress.of', { done: formatNumber(counts.submitted), total: formatNumber(counts.items) })}
      </Text>
    </Group>
  );
}
