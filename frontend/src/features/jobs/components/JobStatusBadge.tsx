import { Badge, Loader } from '@mantine/core';
import { translateDynamic } from '@/i18n';
import { statusColor } from '@/lib/statusColors';

export function JobStatusBadge({ id, status, testId }: { id: number; status: string; testId?: string }) {
  return (
    <Badge
      color={statusColor('job', status)}
      variant={status === 'running' ? 'filled' : 'light'}
      leftSection={status === 'running' ? <Loader size={10} color="white" /> : undefined}
      data-testid={testId ?? `job-status-${id}`}
      data-status={status}
      style={{ flexShrink: 0, overflow: 'visible' }}
    >
      {translateDynamic(`jobs:status.${status}`, status)}
    </Badge>
  );
}
