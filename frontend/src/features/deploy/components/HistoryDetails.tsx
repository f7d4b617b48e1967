import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatPercent } from '@/lib/numbers';
import type { DeploymentHistoryEntry } from '../api/deployments';

/**
 * What one history entry changed, in a line or two: the split after a traffic, promote or shadow
 * change (with stickiness), or the capture policy after a capture change.
 */
export function HistoryDetails({ entry }: { entry: DeploymentHistoryEntry }) {
  const { t } = useTranslation('deploy');
  const details = entry.details;
  if (!details) return null;
  const lines: string[] = [];
  if (details.traffic && details.traffic.length > 0) {
    const served = details.traffic.filter((item) => item.role !== 'shadow');
    const shadow = details.traffic.find((item) => item.role === 'shadow');
    lines.push(
      served.map((item) => t('historyDetails.share', { version: item.model_version_name, weight: item.weight, role: t(`traffic.roles.${item.role}`) })).join(' · '),
    );
    lines.push(shadow ? t('historyDetails.shadow', { version: shadow.model_version_name }) : entry.action === 'shadow' ? t('historyDetails.noShadow') : '');
  }
  if (details.sticky !== undefined && details.sticky !== null && entry.action === 'traffic') lines.push(details.sticky ? t('historyDetails.sticky') : t('historyDetails.notSticky'));
  const capture = details.capture;
  if (capture) {
    if (capture.enabled === false) lines.push(t('historyDetails.captureOff'));
    else {
      const parts = [t('historyDetails.captureOn')];
      if (typeof capture.sample_rate === 'number') parts.push(t('historyDetails.sampleRate', { rate: formatPercent(capture.sample_rate, 0) }));
      if (typeof capture.retention_days === 'number') parts.push(t('historyDetails.retention', { count: capture.retention_days }));
      if (typeof capture.max_bytes === 'number' && capture.max_bytes > 0) parts.push(t('historyDetails.maxBytes', { size: formatBytes(capture.max_bytes) }));
      if (typeof capture.low_confidence_below === 'number') parts.push(t('historyDetails.lowConfidence', { score: capture.low_confidence_below }));
      if (capture.shadow_disagreement) parts.push(t('historyDetails.disagreement'));
      if (capture.labels && capture.labels.length > 0) parts.push(t('historyDetails.labels', { labels: capture.labels.join(', ') }));
      lines.push(parts.join(' · '));
    }
  }
  const shown = lines.filter(Boolean);
  if (shown.length === 0) return null;
  return (
    <div data-testid="deployment-history-details">
      {shown.map((line) => (
        <Text key={line} size="sm">
          {line}
        </Text>
      ))}
    </div>
  );
}
