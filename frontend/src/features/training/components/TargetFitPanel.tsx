import { Code, List, Paper, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TargetFit } from '../api/targetFit';

/** What a training job adapted to meet its deployment target, and why. */
export function TargetFitPanel({ fit }: { fit: TargetFit }) {
  const { t } = useTranslation('training');
  const choice = Object.entries(fit.choice);
  return (
    <Paper withBorder p="sm" data-testid="job-target-fit">
      <Title order={6}>{t('target.fitTitle', { profile: fit.profile })}</Title>
      {fit.candidates > 0 && (
        <Text size="xs" c="dimmed">
          {t('target.candidates', { count: fit.candidates })}
        </Text>
      )}
      {choice.length > 0 && (
        <Text size="sm">
          {t('target.chosen')}{' '}
          <Code>{choice.map(([name, value]) => `${name}=${String(value)}`).join(', ')}</Code>
        </Text>
      )}
      {fit.latency_ms !== null && (
        <Text size="sm" c="dimmed" data-testid="job-target-latency">
          {fit.budget_ms !== null ? t('target.latencyBudget', { latency: fit.latency_ms.toFixed(2), budget: fit.budget_ms.toFixed(2) }) : t('target.latency', { latency: fit.latency_ms.toFixed(2) })}
        </Text>
      )}
      {fit.reasons.length > 0 && (
        <List size="sm" mt={4}>
          {fit.reasons.map((reason) => (
            <List.Item key={reason}>{reason}</List.Item>
          ))}
        </List>
      )}
    </Paper>
  );
}
