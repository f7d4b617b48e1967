import { Badge } from '@mantine/core';
import { translateDynamic } from '@/i18n';
import { statusColor } from '@/lib/statusColors';

/** A study's or a trial's state, written out in full in the UI's language (the badge never clips it). */
export function StateBadge({ kind, state, testId, title }: { kind: 'study' | 'trial'; state: string; testId?: string; title?: string }) {
  const key = kind === 'study' ? `automl:status.${state}` : `automl:trialState.${state}`;
  return (
    <Badge
      color={statusColor(kind, state)}
      variant={kind === 'study' ? 'filled' : 'light'}
      data-testid={testId}
      data-state={state}
      title={title}
      style={{ flexShrink: 0, overflow: 'visible', maxWidth: 'none' }}
      styles={{ label: { overflow: 'visible', textOverflow: 'clip' } }}
    >
      {translateDynamic(key, state)}
    </Badge>
  );
}
