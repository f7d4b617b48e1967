import { Alert, Anchor, Badge, Button, Code, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Stat } from '@/components/Stat';
import { WithReason } from '@/components/WithReason';
import { translateDynamic } from '@/i18n';
import { formatSeconds } from '@/lib/datetime';
import { errorMessage } from '@/lib/notifications';
import { formatNumber, formatPercent } from '@/lib/numbers';
import { automlKeys } from '../api/keys';
import { canChange, formatParam, formatValue, isLive, type Study, type StudyResults, type Trial } from '../api/studies';
import { usePromote, useResults, useStudy, useStudyAction, useTrials } from '../hooks/useStudies';
import { StateBadge } from './StateBadge';
import { HistoryChart, ImportanceChart, IntermediateChart, ParallelCoordinates } from './StudyCharts';
import { templateName } from '@/features/training';
import { customCodeOf } from '../api/customCode';
import { formatMetric, goalsOf, isMultiObjective } from '../api/multiObjective';
import { ParetoPanel } from './ParetoPanel';

/** The test metric a study's trials are judged by: test accuracy for classifiers, mAP@.5 for
 * detectors, MASE for forecasters (lower is better; a number, not a percentage). */
type TestMetric = { key: 'accuracy' | 'map50' | 'mase'; column: 'testAccuracy' | 'testMap50' | 'testMase'; fraction: boolean };

function testMetricOf(template: string): TestMetric {
  if (template === 'time_series_forecasting') return { key: 'mase', column: 'testMase', fraction: false };
  if (template === 'object_detection') return { key: 'map50', column: 'testMap50', fraction: true };
  return { key: 'accuracy', column: 'testAccuracy', fraction: true };
}

function testValue(metrics: Trial['test_metrics'], metric: TestMetric): number | null {
  const value = (metrics as Record<string, number | null | undefined>)[metric.key];
  return value ?? null;
}

function TrialModel({ study, trial }: { study: Study; trial: Trial }) {
  const { t } = useTranslation('automl');
  const promote = usePromote(study.id);
  const id = trial.model_version ?? promote.data?.id ?? null;
  if (id !== null)
    return (
      <Anchor component={Link} to={`/model-versions/${id}`} size="sm" data-testid={`trial-${trial.number}-model-version`}>
        {trial.model_version_name ?? promote.data?.name}
      </Anchor>
    );
  // a custom-code trial's model version is made by its own run (when its code saves one), not promoted
  if (trial.state !== 'complete' || customCodeOf(study)) return <>—</>;
  const reason = canChange(study) ? null : t('view.viewerCannot');
  return (
    <WithReason reason={reason}>
      <Button size="compact-xs" variant="subtle" disabled={!!reason} onClick={() => promote.mutate(trial.number)} loading={promote.isPending} data-testid={`trial-${trial.number}-promote`}>
        {t('view.promote')}
      </Button>
    </WithReason>
  );
}

function TrialsTable({ study, trials, space }: { study: Study; trials: Trial[]; space: string[] }) {
  const { t } = useTranslation('automl');
  const metric = testMetricOf(study.template);
  const custom = customCodeOf(study) !== null; // a custom-code trial reports steps, and has no test split of its own
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped withTableBorder data-testid="trials-table" data-rows={trials.length}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>#</Table.Th>
            <Table.Th>{t('view.columns.state')}</Table.Th>
            <Table.Th>{t('view.columns.value')}</Table.Th>
            {space.map((name) => (
              <Table.Th key={name}>{name}</Table.Th>
            ))}
            <Table.Th>{custom ? t('custom.view.steps') : t('view.columns.epochs')}</Table.Th>
            {!custom && <Table.Th>{t(`view.columns.${metric.column}`)}</Table.Th>}
            <Table.Th>{t('view.columns.duration')}</Table.Th>
            <Table.Th>{t('view.columns.job')}</Table.Th>
            <Table.Th>{t('view.columns.model')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {trials.map((trial) => (
            <Table.Tr key={trial.number} data-testid="trial-row" data-state={trial.state}>
              <Table.Td>{trial.number}</Table.Td>
              <Table.Td>
                <StateBadge kind="trial" state={trial.state} title={trial.error || undefined} testId={`trial-${trial.number}-state`} />
              </Table.Td>
              <Table.Td data-testid={`trial-${trial.number}-value`}>
                {isMultiObjective(study)
                  ? goalsOf(study)
                      .map((goal, index) => formatMetric(goal.metric, trial.values?.[index]))
                      .join(' · ')
                  : formatValue(trial.value)}
                {trial.feasible === false && (
                  <Badge ml={6} size="xs" color="gray" variant="light" data-testid={`trial-${trial.number}-infeasible`}>
                    {t('pareto.kind.infeasible')}
                  </Badge>
                )}
              </Table.Td>
              {space.map((name) => (
                <Table.Td key={name}>{name in trial.params ? formatParam(trial.params[name]) : '—'}</Table.Td>
              ))}
              <Table.Td>
                {trial.intermediate.length}
                {trial.pruned_at_epoch ? t('view.prunedSuffix') : ''}
              </Table.Td>
              {!custom && <Table.Td data-testid={`trial-${trial.number}-test`}>{formatValue(testValue(trial.test_metrics, metric), 3)}</Table.Td>}
              <Table.Td>{trial.duration_seconds === null ? '—' : formatSeconds(trial.duration_seconds)}</Table.Td>
              <Table.Td>
                {trial.job ? (
                  <Anchor component={Link} to={`/jobs/${trial.job}`} size="sm">
                    #{trial.job}
                  </Anchor>
                ) : (
                  '—'
                )}
              </Table.Td>
              <Table.Td>
                <TrialModel study={study} trial={trial} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function LiftReport({ lift, template }: { lift: StudyResults['lift']; template: string }) {
  const { t } = useTranslation('automl');
  if (lift.status === 'disabled') return null;
  // a fraction (accuracy, mAP) reads in percent and points; MASE is a plain number, lower is better
  const fraction = testMetricOf(template).fraction;
  const plain = (value: number) => formatNumber(value, { maximumFractionDigits: 3, minimumFractionDigits: 3 });
  const spread = (side: StudyResults['lift']['baseline']) =>
    side.mean === null
      ? '—'
      : t('lift.spread', {
          mean: fraction ? formatPercent(side.mean) : plain(side.mean),
          std: fraction ? formatNumber((side.std ?? 0) * 100, { maximumFractionDigits: 1, minimumFractionDigits: 1 }) : plain(side.std ?? 0),
          n: side.values.length,
        });
  const liftText =
    lift.lift === null
      ? lift.status === 'running'
        ? t('lift.training')
        : '—'
      : fraction
        ? t('lift.points', { sign: lift.lift >= 0 ? '+' : '', value: formatNumber(lift.lift * 100, { maximumFractionDigits: 1, minimumFractionDigits: 1 }) })
        : t('lift.lowerIsBetter', { sign: lift.lift >= 0 ? '+' : '', value: plain(lift.lift) });
  return (
    <Paper withBorder p="sm" data-testid="lift-report" data-status={lift.status}>
      <Title order={6}>{t('lift.title')}</Title>
      <Text size="sm" c="dimmed" mb="xs">
        {t('lift.description', { seeds: lift.seeds.join(', ') || '…', metric: lift.metric })}
      </Text>
      {lift.status === 'not_started' ? (
        <Text size="sm">{t('lift.notStarted')}</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <Stat label={t('lift.preset')} value={spread(lift.baseline)} testId="lift-baseline" />
          <Stat label={t('lift.best')} value={spread(lift.best)} testId="lift-best" />
          <Stat label={t('lift.lift')} value={liftText} testId="lift-value" />
        </SimpleGrid>
      )}
      {lift.errors.map((failure) => (
        <Text key={`${failure.role}-${failure.seed}`} c="red" size="xs">
          {t('lift.runFailed', { role: String(failure.role), seed: String(failure.seed), error: String(failure.error) })}
        </Text>
      ))}
    </Paper>
  );
}

function Actions({ study }: { study: Study }) {
  const { t } = useTranslation('automl');
  const action = useStudyAction(study.id);
  const promote = usePromote(study.id);
  const best = study.best_trial;
  const promoted = promote.data ?? null;
  const versionId = promoted?.id ?? best?.model_version ?? null;
  const versionName = promoted?.name ?? best?.model_version_name ?? null;
  const viewer = canChange(study) ? null : t('view.viewerCannot');
  return (
    <Stack gap="xs" align="flex-end">
      <Group gap="xs" justify="flex-end">
        {study.status === 'running' && (
          <WithReason reason={viewer}>
            <Button variant="light" disabled={!!viewer} onClick={() => action.mutate('pause')} loading={action.isPending} data-testid="study-pause">
              {t('view.pause')}
            </Button>
          </WithReason>
        )}
        {study.status === 'paused' && (
          <WithReason reason={viewer}>
            <Button variant="light" disabled={!!viewer} onClick={() => action.mutate('resume')} loading={action.isPending} data-testid="study-resume">
              {t('view.resume')}
            </Button>
          </WithReason>
        )}
        {(study.status === 'running' || study.status === 'paused') && (
          <WithReason reason={viewer}>
            <Button variant="light" color="red" disabled={!!viewer} onClick={() => action.mutate('stop')} loading={action.isPending} data-testid="study-stop">
              {t('view.stop')}
            </Button>
          </WithReason>
        )}
        {versionId === null && !customCodeOf(study) && !isMultiObjective(study) && (
          <WithReason reason={viewer ?? (best ? null : t('view.noBestYet'))}>
            <Button onClick={() => promote.mutate(undefined)} disabled={!!viewer || !best} loading={promote.isPending} data-testid="promote-best">
              {t('view.promoteBest')}
            </Button>
          </WithReason>
        )}
      </Group>
      {versionId !== null && (
        <Anchor component={Link} to={`/model-versions/${versionId}`} data-testid="promoted-model-version">
          {t('view.promoted', { name: versionName })}
        </Anchor>
      )}
      {promote.isError && (
        <Text c="red" size="sm" data-testid="promote-error">
          {errorMessage(promote.error)}
        </Text>
      )}
    </Stack>
  );
}

/** A study live: status and controls, best trial, charts, the trials table and the lift report. */
export function StudyView({ studyId }: { studyId: number }) {
  const { t } = useTranslation('automl');
  const queryClient = useQueryClient();
  const { data: study, error } = useStudy(studyId);
  const live = study ? isLive(study) : true;
  const trials = useTrials(studyId, live);
  const results = useResults(studyId, live);
  // The study, its trials and its results are three polls: when the study's state or counts move (a
  // trial ended, the study completed), read the other two again at once rather than showing a trial
  // still running next to a completed study until a reload.
  const signature = study ? `${study.status}:${study.trials.total}:${study.trials.running}:${study.trials.complete}:${study.trials.pruned}:${study.trials.failed}` : '';
  useEffect(() => {
    if (!signature) return;
    void queryClient.invalidateQueries({ queryKey: automlKeys.trials(studyId) });
    void queryClient.invalidateQueries({ queryKey: automlKeys.results(studyId) });
  }, [signature, studyId, queryClient]);
  if (!study) return error ? <Alert color="red">{errorMessage(error)}</Alert> : <Text c="dimmed">{t('view.loading')}</Text>;
  const space = study.search_space.map((dim) => dim.name);
  const rows = trials.data ?? [];
  const maximize = study.objective.direction !== 'minimize';
  const finished = !live;
  const code = customCodeOf(study);
  return (
    <Stack data-testid="study-view" data-status={study.status} miw={0}>
      <Group justify="space-between" align="flex-start" wrap="wrap">
        <Stack gap={4} miw={0} style={{ flex: '1 1 360px' }}>
          <Group gap="xs" wrap="nowrap" miw={0}>
            <Title order={3} style={{ overflowWrap: 'anywhere' }}>
              {study.name}
            </Title>
            <StateBadge kind="study" state={study.status} testId="study-status" />
          </Group>
          <Text size="sm" c="dimmed">
            {code ? (
              <span data-testid="study-custom-code">
                {t('custom.view.subtitle', { code: code.code_name, entry: code.entry_point })}
                {study.dataset !== null ? ` ${t('custom.view.on')} ` : ''}
              </span>
            ) : (
              <>{t('view.subtitle', { template: templateName(study.template) })} </>
            )}
            {study.dataset !== null && (
              <Anchor component={Link} to={`/datasets/${study.dataset}/versions`} size="sm">
                {study.dataset_name} {study.dataset_version_name}
              </Anchor>
            )}{' '}
            ·{' '}
            {t('view.config', {
              sampler: translateDynamic(`automl:sampler.${study.sampler_in_use}`, study.sampler_in_use),
              fallback: study.sampler_in_use !== study.sampler ? t('view.samplerFallback', { sampler: translateDynamic(`automl:sampler.${study.sampler}`, study.sampler) }) : '',
              pruner: translateDynamic(`automl:pruner.${study.pruner}`, study.pruner),
              parallelism: study.parallelism,
              seed: study.seed,
              metric: study.objective.metric,
              direction: translateDynamic(`automl:direction.${study.objective.direction}`, study.objective.direction),
            })}
          </Text>
        </Stack>
        <Actions study={study} />
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 5 }}>
        <Stat label={t('view.stats.trials')} value={`${study.trials.total}/${study.n_trials}`} testId="study-trial-count" />
        <Stat label={t('view.stats.running')} value={String(study.trials.running)} testId="study-running" />
        <Stat label={t('view.stats.pruned')} value={String(study.trials.pruned)} testId="study-pruned" />
        <Stat label={t('view.stats.failed')} value={String(study.trials.failed)} testId="study-failed" />
        {isMultiObjective(study) ? (
          <Stat label={t('pareto.onFront')} value={String(study.pareto_front?.length ?? 0)} testId="study-front-count" />
        ) : (
          <Stat label={t('view.stats.best')} value={formatValue(study.best_trial?.value ?? null)} testId="study-best-value" />
        )}
      </SimpleGrid>
      {study.best_trial && !isMultiObjective(study) && (
        <Paper withBorder p="sm" data-testid="best-trial">
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {code ? (
              <Trans
                t={t}
                i18nKey="custom.view.bestTrial"
                values={{ number: study.best_trial.number, value: formatValue(study.best_trial.value), metric: study.objective.metric }}
                components={{ b: <b /> }}
              />
            ) : testMetricOf(study.template).key === 'accuracy' ? (
              <Trans
                t={t}
                i18nKey="view.bestTrial"
                values={{ number: study.best_trial.number, value: formatValue(study.best_trial.value), accuracy: formatValue(study.best_trial.test_metrics.accuracy ?? null, 3) }}
                components={{ b: <b /> }}
              />
            ) : (
              <Trans
                t={t}
                i18nKey="view.bestTrialTest"
                values={{
                  number: study.best_trial.number,
                  value: formatValue(study.best_trial.value),
                  metric: t(`view.columns.${testMetricOf(study.template).column}`),
                  test: formatValue(testValue(study.best_trial.test_metrics, testMetricOf(study.template)), 3),
                }}
                components={{ b: <b /> }}
              />
            )}{' '}
            <Code style={{ whiteSpace: 'normal', overflowWrap: 'anywhere' }}>
              {Object.entries(study.best_trial.params)
                .map(([key, value]) => `${key}=${formatParam(value)}`)
                .join(', ')}
            </Code>
          </Text>
        </Paper>
      )}
      {results.data && !code && <LiftReport lift={results.data.lift} template={study.template} />}
      {isMultiObjective(study) && <ParetoPanel study={study} trials={rows} finished={finished} />}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <HistoryChart history={results.data?.history ?? []} finished={finished} />
        <ParallelCoordinates space={study.search_space} trials={rows} maximize={maximize} finished={finished} />
        <IntermediateChart trials={rows} finished={finished} />
        <ImportanceChart importances={results.data?.importances ?? {}} completed={study.trials.complete} finished={finished} />
      </SimpleGrid>
      <Title order={5}>{t('view.trialsTitle')}</Title>
      <TrialsTable study={study} trials={rows} space={space} />
    </Stack>
  );
}
