import { Group, Progress, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '@/lib/numbers';
import { progressColor } from '@/lib/statusColors';
import { progressPercent, type Job } from '../api/jobs';
import { progressMessage } from '../api/progressMessage';

export function JobProgressBar({ job, showMessage = false }: { job: Pick<Job, 'id' | 'status' | 'progress'>; showMessage?: boolean }) {
  const { t } = useTranslation('jobs');
  const percent = progressPercent(job);
  const line = progressMessage(job.progress);
  const running = job.status === 'running';
  return (
    <Stack gap={4} miw={140}>
      <Group gap="xs" wrap="nowrap">
        <Progress
          value={percent}
          color={progressColor(job.status)}
          striped={running}
          animated={running}
          flex={1}
          aria-label={t('progress.label', { percent: formatNumber(percent) })}
          data-testid={`job-progress-${job.id}`}
          data-value={percent}
        />
        <Text size="xs" c="dimmed" w={44} ta="right">
          {formatNumber(percent)}%
        </Text>
      </Group>
      {showMessage && line && (
        <Text size="xs" c="dimmed" data-testid={`job-progress-message-${job.id}`}>
          {line}
        </Text>
      )}
    </Stack>
  );
}
