import { Anchor, Badge, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatBytes } from '@/lib/numbers';
import { formatDelta } from '../api/format';
import { useCompressionsOf } from '../hooks/useCompression';

/** A model version's compression runs (links to their reports); nothing when it has none. */
export function CompressionsList({ modelVersionId }: { modelVersionId: number }) {
  const { t } = useTranslation('compression');
  const { data: runs } = useCompressionsOf(modelVersionId);
  if (!runs?.length) return null;
  return (
    <Paper withBorder p="md" data-testid="compressions-list">
      <Stack gap="xs">
        <Title order={5}>{t('list.title')}</Title>
        {runs.map((run) => (
          <Group key={run.id} gap="xs" data-testid={`compressions-list-${run.id}`}>
            <Anchor component={Link} to={`/compressions/${run.id}`} size="sm">
              {t('list.run', { id: run.id })}
            </Anchor>
            {run.status && <Badge size="xs" variant="light">{t(`status.${run.status}` as 'status.running', { defaultValue: run.status })}</Badge>}
            <Text size="xs" c="dimmed">
              {(run.report?.variants ?? [])
                .map((variant) => t('list.variant', { name: variant.name, size: formatBytes(variant.summary.size_bytes), delta: formatDelta(variant.summary.metric, variant.summary.delta) }))
                .join(' · ') || (run.spec?.recipes ?? []).map((recipe) => recipe.name).join(' · ')}
            </Text>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}
