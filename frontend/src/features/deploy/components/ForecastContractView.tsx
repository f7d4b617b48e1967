import { Badge, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ForecastContract } from '@/lib/forecasting';
import { formatPercent } from '@/lib/numbers';

function Field({ label, children, testId }: { label: string; children: React.ReactNode; testId: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={600} component="div" data-testid={testId}>
        {children}
      </Text>
    </Stack>
  );
}

function Names({ names }: { names: string[] }) {
  const { t } = useTranslation('deploy');
  if (names.length === 0) return <>{t('forecastContract.none')}</>;
  return (
    <Group gap={4}>
      {names.map((name) => (
        <Badge key={name} variant="outline" color="gray" tt="none" size="sm">
          {name}
        </Badge>
      ))}
    </Group>
  );
}

/**
 * What a deployed forecaster takes (its forecast_contract): the frequency, the fewest history
 * points, the longest horizon, the quantiles it answers and the covariates a request carries.
 */
export function ForecastContractView({ contract, compact = false }: { contract: ForecastContract; compact?: boolean }) {
  const { t } = useTranslation('deploy');
  return (
    <Paper withBorder p={compact ? 'sm' : 'md'} data-testid="forecast-contract">
      {!compact && (
        <Title order={5} mb="xs">
          {t('forecastContract.title')}
        </Title>
      )}
      <SimpleGrid cols={{ base: 2, sm: compact ? 3 : 4 }} spacing="sm">
        <Field label={t('forecastContract.frequency')} testId="forecast-contract-frequency">
          {contract.frequency}
        </Field>
        <Field label={t('forecastContract.minHistory')} testId="forecast-contract-min-history">
          {t('forecastContract.points', { count: contract.min_history })}
        </Field>
        <Field label={t('forecastContract.horizon')} testId="forecast-contract-horizon">
          {t('forecastContract.steps', { count: contract.horizon })}
        </Field>
        <Field label={t('forecastContract.quantiles')} testId="forecast-contract-quantiles">
          {contract.quantiles.join(', ') || '—'}{' '}
          <Text span size="xs" c="dimmed">
            {t('forecastContract.interval', { level: formatPercent(contract.interval_level, 0) })}
          </Text>
        </Field>
        <Field label={t('forecastContract.known')} testId="forecast-contract-known">
          <Names names={contract.known_covariates} />
        </Field>
        <Field label={t('forecastContract.static')} testId="forecast-contract-static">
          <Names names={contract.static_covariates} />
        </Field>
        {!compact && (
          <Field label={t('forecastContract.seriesIds')} testId="forecast-contract-series">
            {t('forecastContract.seriesCount', { count: contract.series_ids.length })}
          </Field>
        )}
      </SimpleGrid>
    </Paper>
  );
}
