import { Badge } from '@mantine/core';
import { statusColor } from '@/lib/statusColors';

export function DeploymentStatusBadge({ id, status }: { id: number; status: string }) {
  return (
    <Badge color={statusColor('deployment', status)} variant={status === 'active' ? 'filled' : 'light'} data-testid={`deployment-status-${id}`} data-status={status}>
      {status === 'active' ? 'serving' : status}
    </Badge>
  );
}
