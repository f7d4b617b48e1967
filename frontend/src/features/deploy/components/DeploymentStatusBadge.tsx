import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { translateDynamic } from '@/i18n';
import { statusColor } from '@/lib/statusColors';

export function DeploymentStatusBadge({ id, status }: { id: number; status: string }) {
  useTranslation('deploy'); // re-render when the language changes
  return (
    <Badge color={statusColor('deployment', status)} variant={status === 'active' ? 'filled' : 'light'} data-testid={`deployment-status-${id}`} data-status={status}>
      {translateDynamic(`deploy:status.${status}`, status)}
    </Badge>
  );
}
