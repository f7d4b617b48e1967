import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Alert, Badge, Button, Group, NumberInput, Paper, Select, SimpleGrid, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { Stat } from '@/components/Stat';
import { WithReason } from '@/components/WithReason';
import { useDataset, useLabels, type Label } from '@/features/datasets';
import { JobProgressBar } from '@/features/jobs';
import { formatDateTime } from '@/lib/datetime';
import { errorMessage, notifyError } from '@/lib/notifications';
import { formatNumber, formatPercent } from '@/lib/numbers';
import { listSuggestions, MAX_SUGGESTIONS_PAGE, STRATEGIES, type SmartRound, type Strategy } from '../api/smart';
import { useSmartRounds, useStartRound, useSuggestionPage } from '../hooks/useSmartLabeling';
import { labelerLink, startBlocker } from './labelerLink';
import { SuggestionsTable } from './SuggestionsTable';

const DEFAULT_BATCH = 50;
const MAX_BATCH = 500;

function isActive(round: SmartRound): boolean {
  return round.status === 'queued' || round.status === 'running';
}

/**
 * The Smart labeling tab: start a round (a job that trains a quick model on the labeled samples,
 * suggests a label for every unlabeled one and ranks them by how much labeling them would help),
 * watch it run, read its summary, label the ranked samples next, and accept or reject suggestions.
 */
export function SmartLabelingPanel({ datasetId, canEdit }: { datasetId: number; canEdit: boolean }) {
  const { t } = useTranslation(['labeling', 'common']);
  const navigate = useNavigate();
  const { data: dataset } = useDataset(datasetId);
  const { data: labels = [] } = useLabels(datasetId);
  const rounds = useSmartRounds(datasetId);
  // Suggestions from production (captured requests sent here) are listed apart, when there are any.
  const production = useSuggestionPage(datasetId, { status: 'pending', source: 'capture', pageSize: 1 });
  const start = useStartRound(datasetId);
  const [batchSize, setBatchSize] = useState<number>(DEFAULT_BATCH);
  const [strategy, setStrategy] = useState<Strategy>('uncertainty_diversity');
  const [opening, setOpening] = useState(false);

  if (!dataset || rounds.isPending) return <Skeleton h={240} />;
  if (rounds.isError) return <Alert color="red">{errorMessage(rounds.error)}</Alert>;
  const list = rounds.data.results;
  const active = list.find(isActive) ?? null;
  const latest = list.find((round) => round.status === 'succeeded') ?? null;
  const lastFinished = list.find((round) => !isActive(round)) ?? null;
  const failed = lastFinished && lastFinished.status === 'failed' ? lastFinished : null;
  const readOnly = canEdit ? null : t('common:permissions.viewerReadOnly');
  const validBatch = Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= MAX_BATCH;
  const reason =
    readOnly ||
    (active && t('smart.start.running', { number: active.number })) ||
    startBlocker(dataset, labels, t) ||
    (!validBatch && t('smart.start.badBatch', { max: MAX_BATCH }));

  const onStart = () =>
    start.mutate({ batch_size: batchSize, strategy }, { onError: (error) => notifyError(error, t('smart.start.failed')) });

  /** Opens the labeler on the latest round's ranked samples that are still unlabeled, in rank order. */
  const labelNext = async () => {
    if (!latest) return;
    setOpening(true);
    try {
      const wanted = Math.min(latest.summary?.ranked || latest.params.batch_size, MAX_SUGGESTIONS_PAGE);
      const page = await listSuggestions(datasetId, { round: latest.id, status: 'pending', ordering: 'rank', pageSize: wanted });
      const ids = page.results.filter((suggestion) => suggestion.rank !== null).map((suggestion) => suggestion.sample.id);
      if (ids.length === 0) notifyError(new Error(t('smart.next.none')), t('smart.next.title'));
      else navigate(labelerLink(dataset, ids));
    } catch (error) {
      notifyError(error, t('smart.next.title'));
    } finally {
      setOpening(false);
    }
  };

  return (
    <Stack data-testid="smart-panel">
      <Text size="sm" c="dimmed" data-testid="smart-intro">
        {t('smart.intro')}
      </Text>
      <Paper withBorder p="md">
        <Group align="flex-end" gap="sm">
          <NumberInput
            label={t('smart.start.batchSize')}
            description={t('smart.start.batchSizeHint')}
            value={batchSize}
            onChange={(value) => setBatchSize(typeof value === 'number' ? value : Number(value))}
            min={1}
            max={MAX_BATCH}
            allowDecimal={false}
            w={200}
            size="xs"
            data-testid="smart-batch-size"
          />
          <Select
            label={t('smart.start.strategy')}
            description={t(`smart.strategyHint.${strategy}`)}
            data={STRATEGIES.map((value) => ({ value, label: t(`smart.strategy.${value}`) }))}
            value={strategy}
            onChange={(value) => value && setStrategy(value as Strategy)}
            allowDeselect={false}
            w={300}
            size="xs"
            data-testid="smart-strategy"
          />
          <WithReason reason={reason}>
            <Button size="xs" disabled={!!reason} loading={start.isPending} onClick={onStart} data-testid="smart-start">
              {t('smart.start.button')}
            </Button>
          </WithReason>
        </Group>
        {reason && !readOnly && !active && (
          <Text size="xs" c="orange" mt="xs" data-testid="smart-start-reason">
            {reason}
          </Text>
        )}
      </Paper>

      {active && <RunningRound round={active} />}
      {failed && (
        <Alert color="red" title={t('smart.failed', { number: failed.number })} data-testid="smart-failed">
          {failed.error || t('smart.failedNoMessage')}
        </Alert>
      )}

      {latest?.summary ? (
        <Paper withBorder p="md" data-testid="smart-latest" data-round={latest.id}>
          <Group justify="space-between" mb="sm">
            <Title order={5}>{t('smart.summary.title', { number: latest.number })}</Title>
            <Button size="xs" onClick={() => void labelNext()} loading={opening} disabled={latest.summary.ranked === 0} data-testid="smart-label-next">
              {t('smart.next.button', { count: latest.summary.ranked })}
            </Button>
          </Group>
          <RoundSummary round={latest} labels={labels} taskType={dataset.task_type} />
        </Paper>
      ) : (
        !active && (
          <Paper withBorder p="xl" ta="center" data-testid="smart-no-rounds">
            <Text c="dimmed">{t('smart.noRounds')}</Text>
          </Paper>
        )
      )}

      {latest && <SuggestionsTable dataset={dataset} labels={labels} canEdit={canEdit} round={latest} />}
      {(production.data?.count ?? 0) > 0 && <SuggestionsTable dataset={dataset} labels={labels} canEdit={canEdit} round={null} source="capture" />}

      {list.length > 0 && <RoundsTable rounds={list} />}
    </Stack>
  );
}

function RunningRound({ round }: { round: SmartRound }) {
  const { t } = useTranslation('labeling');
  return (
    <Paper withBorder p="md" data-testid="smart-running" data-round={round.id}>
      <Group justify="space-between" mb="xs">
        <Title order={6}>{t('smart.running', { number: round.number })}</Title>
        <Badge variant="light">{t(`smart.status.${round.status}`)}</Badge>
      </Group>
      {/* The round carries its job's latest progress (polled with the rounds). */}
      <JobProgressBar job={{ id: round.job ?? round.id, status: round.status, progress: round.progress }} showMessage />
    </Paper>
  );
}

function accuracyLabel(taskType: string, t: TFunction<'labeling'>): string {
  if (taskType === 'object_detection') return t('smart.summary.map');
  if (taskType === 'tabular_regression') return t('smart.summary.r2');
  return t('smart.summary.accuracy');
}

/** A round at a glance: the quick model's estimated accuracy, the counts, and two charts. */
export function RoundSummary({ round, labels, taskType }: { round: SmartRound; labels: Pick<Label, 'name'>[]; taskType: string }) {
  const { t } = useTranslation('labeling');
  const summary = round.summary;
  if (!summary) return null;
  const accuracy = summary.estimated_accuracy;
  const histogram = summary.confidence_histogram.map((count, bin) => ({
    bucket: `${(bin / 10).toFixed(1)}–${((bin + 1) / 10).toFixed(1)}`,
    count,
  }));
  const perClass = summary.per_class_suggested.map((count, index) => ({ name: labels[index]?.name ?? `#${index + 1}`, count }));
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <Stat
          label={accuracyLabel(taskType, t)}
          value={accuracy === null ? '—' : taskType === 'tabular_regression' ? formatNumber(accuracy, { maximumFractionDigits: 3 }) : formatPercent(accuracy)}
          hint={accuracy === null ? t('smart.summary.tooFew') : t('smart.summary.accuracyHint')}
          testId="smart-accuracy"
        />
        <Stat label={t('smart.summary.labeled')} value={formatNumber(summary.labeled)} testId="smart-labeled" />
        <Stat label={t('smart.summary.unlabeled')} value={formatNumber(summary.unlabeled)} testId="smart-unlabeled" />
        <Stat label={t('smart.summary.ranked')} value={formatNumber(summary.ranked)} hint={t(`smart.strategy.${summary.strategy}`)} testId="smart-ranked" />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Paper withBorder p="md" data-testid="smart-confidence-chart" data-points={histogram.length}>
          <Title order={6} mb="xs">
            {t('smart.summary.confidenceTitle')}
          </Title>
          <BarChart
            h={220}
            data={histogram}
            dataKey="bucket"
            series={[{ name: 'count', label: t('smart.summary.suggestionsSeries'), color: 'violet.6' }]}
            valueFormatter={(value) => formatNumber(value)}
            xAxisLabel={t('smart.summary.confidenceAxis')}
            tickLine="y"
          />
        </Paper>
        {perClass.length > 0 && (
          <Paper withBorder p="md" data-testid="smart-class-chart" data-points={perClass.length}>
            <Title order={6} mb="xs">
              {t('smart.summary.perClassTitle')}
            </Title>
            <BarChart
              h={Math.max(120, perClass.length * 26 + 40)}
              data={perClass}
              dataKey="name"
              orientation="vertical"
              series={[{ name: 'count', label: t('smart.summary.suggestionsSeries'), color: 'blue.6' }]}
              yAxisProps={{ interval: 0, width: 90 }}
              valueFormatter={(value) => formatNumber(value)}
              gridAxis="x"
              tickLine="x"
            />
          </Paper>
        )}
      </SimpleGrid>
    </Stack>
  );
}

function RoundsTable({ rounds }: { rounds: SmartRound[] }) {
  const { t } = useTranslation('labeling');
  return (
    <Paper withBorder p="md">
      <Title order={6} mb="xs">
        {t('smart.rounds.title')}
      </Title>
      <Table fz="sm" verticalSpacing={4} data-testid="smart-rounds">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('smart.rounds.number')}</Table.Th>
            <Table.Th>{t('smart.rounds.status')}</Table.Th>
            <Table.Th>{t('smart.rounds.strategy')}</Table.Th>
            <Table.Th>{t('smart.rounds.labeled')}</Table.Th>
            <Table.Th>{t('smart.rounds.accuracy')}</Table.Th>
            <Table.Th>{t('smart.rounds.created')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rounds.map((round) => (
            <Table.Tr key={round.id} data-testid={`smart-round-${round.id}`}>
              <Table.Td>{round.number}</Table.Td>
              <Table.Td>{t(`smart.status.${round.status}`)}</Table.Td>
              <Table.Td>{t(`smart.strategy.${round.params.strategy}`)}</Table.Td>
              <Table.Td>{round.summary ? formatNumber(round.summary.labeled) : '—'}</Table.Td>
              <Table.Td>{round.summary?.estimated_accuracy != null ? formatPercent(round.summary.estimated_accuracy) : '—'}</Table.Td>
              <Table.Td>{formatDateTime(round.created_at)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
