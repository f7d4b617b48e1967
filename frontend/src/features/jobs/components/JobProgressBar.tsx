import { Group, Progress, Stack, Text } from '@mantine/core';
import { progressColor } from '@/lib/statusColors';
import { progressPercent, type Job } from '../api/jobs';

export function JobProgressBar({ job, showMessage = false }: { job: Pick<Job, 'id' | 'status' | 'progress'>; showMessage?: boolean }) {
  const percent = progressPercent(job);
  const { message, step, total } = job.progress;
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
          aria-label={`Progress ${percent}%`}
          data-testid={`job-progress-${job.id}`}
          data-value={percent}
        />
        <Text size="xs" c="dimmed" w={44} ta="right">
          {percent}%
        </Text>
      </Group>
      {showMessage && (message || (step !== undefined && total !== undefined)) && (
        <Text size="xs" c="dimmed" data-testid={`job-progress-message-${job.id}`}>
          {message || `Step ${step}/${total}`}
        </Text>
      )}
    </Stack>
  );
}
