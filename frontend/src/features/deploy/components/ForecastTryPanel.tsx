import { Alert, Badge, Button, Checkbox, Group, NumberInput, Paper, SimpleGrid, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '@/api/client';
import { ForecastChart } from '@/components/ForecastChart';
import { WithReason } from '@/components/WithReason';
import { forecastContractOf, quantileKey, type ForecastContract, type ForecastInstance, type ForecastPrediction } from '@/lib/forecasting';
import { errorMessage } from '@/lib/notifications';
import { formatNumber, formatPercent } from '@/lib/numbers';
import { forecastProblemOf, forecastsOf, parseHistory, type PredictResult } from '../api/predict';
import { formatMs } from '../api/usage';
import { useModelVersion, useTryPredict } from '../hooks/useDeploy';
import { ForecastContractView } from './ForecastContractView';

type Target = { modelVersion: number } | { deployment: number };

/** The most history points a result chart shows before the forecast (the rest is off to the left). */
const SHOWN_HISTORY = 120;

/** The quantiles a try asks for at first: the interval's two when the model answers them, else all. */
function defaultQuantiles(contract: ForecastContract | null): number[] {
  if (!contract) return [];
  const tail = Math.round(((1 - contract.interval_level) / 2) * 1e6) / 1e6;
  const pair = contract.quantiles.filter((q) => Math.abs(q - tail) < 1e-6 || Math.abs(q - (1 - tail)) < 1e-6);
  return pair.length === 2 ? pair : contract.quantiles;
}

function short(value: number): string {
  return formatNumber(value, { maximumSignificantDigits: 5 });
}

/** One series' forecast: its history and the forecast with the band between the lowest and highest quantile asked. */
function SeriesForecast({ instance, prediction, index }: { instance: ForecastInstance | undefined; prediction: ForecastPrediction; index: number }) {
  const { t } = useTranslation('deploy');
  const levels = Object.keys(prediction.quantiles).sort((a, b) => Number(a) - Number(b));
  const low = levels.length >= 2 ? prediction.quantiles[levels[0]] : undefined;
  const high = levels.length >= 2 ? prediction.quantiles[levels[levels.length - 1]] : undefined;
  const history = instance ? instance.values.slice(-SHOWN_HISTORY) : [];
  const historyTimes = instance ? instance.timestamps.slice(-SHOWN_HISTORY) : [];
  const suffix = index === 0 ? '' : `-${index}`;
  return (
    <Stack gap="xs" data-testid={`forecast-result-${index}`} data-series={prediction.id}>
      <Text size="sm" fw={600}>
        {prediction.id ? t('forecastTry.series', { id: prediction.id }) : t('forecastTry.seriesNumber', { number: index + 1 })}
      </Text>
      <ForecastChart
        testId={`forecast-result-chart${suffix}`}
        data={{
          timestamps: [...historyTimes, ...prediction.timestamps],
          actual: [...history, ...prediction.timestamps.map(() => null)],
          forecastStart: history.length,
          mean: prediction.mean,
          lower: low,
          upper: high,
        }}
        labels={{
          actual: t('forecastTry.chart.history'),
          forecast: t('forecastTry.chart.forecast'),
          interval: low ? t('forecastTry.chart.interval', { low: levels[0], high: levels[levels.length - 1] }) : '',
          forecastStart: t('forecastTry.chart.start'),
        }}
      />
      <Table.ScrollContainer minWidth={320} mah={240}>
        <Table fz="xs" verticalSpacing={2} data-testid={`forecast-result-table${suffix}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('forecastTry.columns.timestamp')}</Table.Th>
              <Table.Th>{t('forecastTry.columns.mean')}</Table.Th>
              {levels.map((level) => (
                <Table.Th key={level}>{t('forecastTry.columns.quantile', { level })}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {prediction.timestamps.map((timestamp, step) => (
              <Table.Tr key={timestamp}>
                <Table.Td>{timestamp}</Table.Td>
                <Table.Td>{short(prediction.mean[step])}</Table.Td>
                {levels.map((level) => (
                  <Table.Td key={level}>{short(prediction.quantiles[level][step])}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

/** A forecast request's failure: the server's message, and which series and position it names. */
function ForecastError({ error, instances }: { error: unknown; instances: ForecastInstance[] }) {
  const { t } = useTranslation('deploy');
  const problem = error instanceof ApiError ? forecastProblemOf(error.details) : null;
  const id = problem?.id ?? (problem?.series !== undefined ? instances[problem.series]?.id : undefined);
  const where = problem
    ? [
        problem.series !== undefined ? t('forecastTry.where.series', { number: problem.series + 1 }) : null,
        id ? t('forecastTry.where.id', { id }) : null,
        problem.field ? t('forecastTry.where.field', { field: problem.field }) : null,
        problem.position !== undefined ? t('forecastTry.where.position', { position: problem.position }) : null,
      ].filter((part): part is string => part !== null)
    : [];
  return (
    <Alert
      color="red"
      variant="light"
      title={error instanceof ApiError ? `${error.status || t('try.network')} ${error.code}` : t('try.failed')}
      data-testid="try-error"
    >
      {errorMessage(error)}
      {where.length > 0 && (
        <Text size="sm" mt={4} fw={600} data-testid="forecast-error-location" data-series={problem?.series} data-position={problem?.position}>
          {where.join(' · ')}
        </Text>
      )}
    </Alert>
  );
}

/**
 * Try a forecaster: paste a series' history (CSV "timestamp,value" lines, "id,timestamp,value"
 * for several, or a JSON ForecastInstances body), pick the horizon and quantiles, and see the
 * forecast after the history with its interval band; a refused history shows the series and
 * position the API names.
 */
export function ForecastTryPanel({ target, modelVersionId, notice }: { target: Target; modelVersionId?: number; notice?: ReactNode }) {
  const { t } = useTranslation('deploy');
  const { data: modelVersion } = useModelVersion(modelVersionId ?? null);
  const contract = forecastContractOf(modelVersion as { forecast_contract?: unknown; preprocessing?: unknown } | undefined);
  const [text, setText] = useState('');
  const [horizon, setHorizon] = useState<number | string>('');
  const [quantiles, setQuantiles] = useState<string[] | null>(null);
  const [inputError, setInputError] = useState<string | null>(null);
  const [sent, setSent] = useState<ForecastInstance[]>([]);
  const predict = useTryPredict(target);
  const chosen = quantiles ?? defaultQuantiles(contract).map(quantileKey);

  const run = () => {
    setInputError(null);
    let body;
    try {
      body = parseHistory(text);
    } catch (error) {
      setInputError(error instanceof Error ? error.message : String(error));
      return;
    }
    if (typeof horizon === 'number') body = { ...body, horizon };
    if (contract && contract.quantiles.length > 0 && body.quantiles === undefined) body = { ...body, quantiles: chosen.map(Number).sort((a, b) => a - b) };
    setSent(body.instances);
    predict.mutate({ forecast: body, topK: 0 });
  };

  const answer: PredictResult | undefined = predict.data;
  const forecasts = answer ? forecastsOf(answer) : null;
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
      <Stack>
        {notice}
        {contract && <ForecastContractView contract={contract} compact />}
        <Textarea
          label={t('forecastTry.historyLabel')}
          description={t('forecastTry.historyHint', { min: contract?.min_history ?? 1 })}
          // i18n-ignore: an example of the format, the same in every language
          placeholder={'timestamp,value\n2024-01-01,112\n2024-02-01,118\n2024-03-01,132'}
          autosize
          minRows={6}
          maxRows={16}
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          data-testid="forecast-history-input"
        />
        {contract && contract.known_covariates.length > 0 && (
          <Text size="xs" c="dimmed" data-testid="forecast-needs-covariates">
            {t('forecastTry.needsCovariates', { names: contract.known_covariates.join(', '), horizon: contract.horizon })}
          </Text>
        )}
        {inputError && (
          <Text c="red" size="sm" data-testid="try-input-error">
            {inputError}
          </Text>
        )}
        <Group align="flex-end">
          <NumberInput
            label={t('forecastTry.horizon')}
            placeholder={contract ? String(contract.horizon) : undefined}
            min={1}
            max={contract?.horizon}
            allowDecimal={false}
            value={horizon}
            onChange={setHorizon}
            w={120}
            data-testid="forecast-horizon"
          />
          {contract && contract.quantiles.length > 0 && (
            <Checkbox.Group label={t('forecastTry.quantiles')} value={chosen} onChange={setQuantiles} data-testid="forecast-quantiles">
              <Group gap="xs" mt={6}>
                {contract.quantiles.map((q) => (
                  <Checkbox key={q} value={quantileKey(q)} label={quantileKey(q)} size="xs" data-testid={`forecast-quantile-${quantileKey(q)}`} />
                ))}
              </Group>
            </Checkbox.Group>
          )}
          <WithReason reason={text.trim() === '' && t('forecastTry.needHistory')}>
            <Button onClick={run} disabled={text.trim() === ''} loading={predict.isPending} data-testid="forecast-submit">
              {t('forecastTry.forecast')}
            </Button>
          </WithReason>
        </Group>
      </Stack>
      <Stack>
        <Title order={5}>{t('try.answer')}</Title>
        {predict.isError && <ForecastError error={predict.error} instances={sent} />}
        {!answer && !predict.isError && (
          <Text c="dimmed" size="sm">
            {t('forecastTry.prompt')}
          </Text>
        )}
        {answer && (
          <Paper withBorder p="md" data-testid="try-result">
            <Group justify="space-between" mb="sm">
              <Badge variant="light" data-testid="try-model-version">
                {answer.model_version.name}
              </Badge>
              <Group gap="xs">
                <Badge variant="outline" color="teal" data-testid="try-latency" title={t('try.serverTimeHint')}>
                  {t('try.serverTime', { time: formatMs(answer.latency_ms) })}
                </Badge>
                <Badge variant="outline" color="gray" title={t('try.roundTripHint')}>
                  {t('try.roundTrip', { time: formatMs(answer.roundTripMs) })}
                </Badge>
              </Group>
            </Group>
            <Stack gap="lg">
              {(forecasts ?? []).map((prediction, index) => (
                <SeriesForecast key={`${prediction.id}-${index}`} instance={sent[index]} prediction={prediction} index={index} />
              ))}
            </Stack>
            {contract && (
              <Text size="xs" c="dimmed" mt="xs">
                {t('forecastTry.intervalNote', { level: formatPercent(contract.interval_level, 0) })}
              </Text>
            )}
          </Paper>
        )}
      </Stack>
    </SimpleGrid>
  );
}
