import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = { active: 'teal', stopped: 'gray' };

export function DeploymentStatusBadge({ id, status }: { id: number; status: string }) {
  return (
    <Badge color={COLORS[status] ?? 'gray'} variant={status === 'active' ? 'filled' : 'light'} data-testid={`deployment-status-${id}`} data-status={status}>
      {status === 'active' ? 'serving' : status}
    </Badge>
  );
}
