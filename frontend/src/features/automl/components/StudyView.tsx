import { Alert, Anchor, Badge, Button, Code, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { Stat } from '@/components/Stat';
import { errorMessage } from '@/lib/notifications';
import { statusColor } from '@/lib/statusColors';
import { formatParam, formatValue, isLive, type Study, type StudyResults, type Trial } from '../api/studies';
import { usePromote, useResults, useStudy, useStudyAction, useTrials } from '../hooks/useStudies';
import { HistoryChart, ImportanceChart, IntermediateChart, ParallelCoordinates } from './StudyCharts';

function TrialModel({ studyId, trial }: { studyId: number; trial: Trial }) {
  const promote = usePromote(studyId);
  const id = trial.model_version ?? promote.data?.id ?? null;
  if (id !== null)
    return (
      <Anchor component={Link} to={`/model-versions/${id}`} size="sm" data-testid={`trial-${trial.number}-model-version`}>
        {trial.model_version_name ?? promote.data?.name}
      </Anchor>
    );
  if (trial.state !== 'complete') return <>—</>;
  return (
    <Button size="compact-xs" variant="subtle" onClick={() => promote.mutate(trial.number)} loading={promote.isPending} data-testid={`trial-${trial.number}-promote`}>
      Promote
    </Button>
  );
}

function TrialsTable({ studyId, trials, space }: { studyId: number; trials: Trial[]; space: string[] }) {
  return (
    <Table striped withTableBorder data-testid="trials-table" data-rows={trials.length}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>#</Table.Th>
          <Table.Th>State</Table.Th>
          <Table.Th>Value</Table.Th>
          {space.map((name) => (
            <Table.Th key={name}>{name}</Table.Th>
          ))}
          <Table.Th>Epochs</Table.Th>
          <Table.Th>Test acc.</Table.Th>
          <Table.Th>Duration</Table.Th>
          <Table.Th>Job</Table.Th>
          <Table.Th>Model</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {trials.map((trial) => (
          <Table.Tr key={trial.number} data-testid="trial-row" data-state={trial.state}>
            <Table.Td>{trial.number}</Table.Td>
            <Table.Td>
              <Badge color={statusColor('trial', trial.state)} variant="light" title={trial.error || undefined}>
                {trial.state}
              </Badge>
            </Table.Td>
            <Table.Td>{formatValue(trial.value)}</Table.Td>
            {space.map((name) => (
              <Table.Td key={name}>{name in trial.params ? formatParam(trial.params[name]) : '—'}</Table.Td>
            ))}
            <Table.Td>{trial.intermediate.length}{trial.pruned_at_epoch ? ' (pruned)' : ''}</Table.Td>
            <Table.Td>{formatValue(trial.test_metrics.accuracy ?? null, 3)}</Table.Td>
            <Table.Td>{trial.duration_seconds === null ? '—' : `${trial.duration_seconds.toFixed(0)}s`}</Table.Td>
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
              <TrialModel studyId={studyId} trial={trial} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function LiftReport({ lift }: { lift: StudyResults['lift'] }) {
  if (lift.status === 'disabled') return null;
  const spread = (side: StudyResults['lift']['baseline']) =>
    side.mean === null ? '—' : `${(side.mean * 100).toFixed(1)}% ± ${((side.std ?? 0) * 100).toFixed(1)} (n=${side.values.length})`;
  return (
    <Paper withBorder p="sm" data-testid="lift-report" data-status={lift.status}>
      <Title order={6}>Honest lift</Title>
      <Text size="sm" c="dimmed" mb="xs">
        The best trial's parameters against the study's preset, both retrained with the same seeds ({lift.seeds.join(', ') || '…'}) on the same data; {lift.metric} on the test split.
      </Text>
      {lift.status === 'not_started' ? (
        <Text size="sm">Starts when the study completes.</Text>
      ) : (
        <SimpleGrid cols={3}>
          <Stat label="Preset" value={spread(lift.baseline)} testId="lift-baseline" />
          <Stat label="Best trial" value={spread(lift.best)} testId="lift-best" />
          <Stat label="Lift" value={lift.lift === null ? (lift.status === 'running' ? 'training…' : '—') : `${lift.lift >= 0 ? '+' : ''}${(lift.lift * 100).toFixed(1)} pts`} testId="lift-value" />
        </SimpleGrid>
      )}
      {lift.errors.map((failure) => (
        <Text key={`${failure.role}-${failure.seed}`} c="red" size="xs">
          {String(failure.role)} seed {String(failure.seed)}: {String(failure.error)}
        </Text>
      ))}
    </Paper>
  );
}

function Actions({ study }: { study: Study }) {
  const action = useStudyAction(study.id);
  const promote = usePromote(study.id);
  const best = study.best_trial;
  const promoted = promote.data ?? null;
  const versionId = promoted?.id ?? best?.model_version ?? null;
  const versionName = promoted?.name ?? best?.model_version_name ?? null;
  return (
    <Stack gap="xs" align="flex-end">
      <Group gap="xs">
        {study.status === 'running' && (
          <Button variant="light" onClick={() => action.mutate('pause')} loading={action.isPending} data-testid="study-pause">
            Pause
          </Button>
        )}
        {study.status === 'paused' && (
          <Button variant="light" onClick={() => action.mutate('resume')} loading={action.isPending} data-testid="study-resume">
            Resume
          </Button>
        )}
        {(study.status === 'running' || study.status === 'paused') && (
          <Button variant="light" color="red" onClick={() => action.mutate('stop')} loading={action.isPending} data-testid="study-stop">
            Stop
          </Button>
        )}
        {versionId === null && (
          <Button onClick={() => promote.mutate(undefined)} disabled={!best} loading={promote.isPending} data-testid="promote-best">
            Promote best trial
          </Button>
        )}
      </Group>
      {versionId !== null && (
        <Anchor component={Link} to={`/model-versions/${versionId}`} data-testid="promoted-model-version">
          Best trial promoted: model version {versionName}
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
  const { data: study, error } = useStudy(studyId);
  const live = study ? isLive(study) : true;
  const trials = useTrials(studyId, live);
  const results = useResults(studyId, live);
  if (!study) return error ? <Alert color="red">{errorMessage(error)}</Alert> : <Text c="dimmed">Loading…</Text>;
  const space = study.search_space.map((dim) => dim.name);
  const rows = trials.data ?? [];
  const maximize = study.objective.direction !== 'minimize';
  return (
    <Stack data-testid="study-view" data-status={study.status}>
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Group gap="xs">
            <Title order={3}>{study.name}</Title>
            <Badge color={statusColor('study', study.status)} data-testid="study-status">
              {study.status}
            </Badge>
          </Group>
          <Text size="sm" c="dimmed">
            {study.template} on{' '}
            <Anchor component={Link} to={`/datasets/${study.dataset}/versions`} size="sm">
              {study.dataset_name} {study.dataset_version_name}
            </Anchor>{' '}
            · sampler {study.sampler_in_use}
            {study.sampler_in_use !== study.sampler ? ` (for ${study.sampler})` : ''} · pruning {study.pruner} · {study.parallelism} in parallel · seed {study.seed} · objective{' '}
            {study.objective.metric} ({study.objective.direction})
          </Text>
        </Stack>
        <Actions study={study} />
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 5 }}>
        <Stat label="Trials" value={`${study.trials.total}/${study.n_trials}`} testId="study-trial-count" />
        <Stat label="Running" value={String(study.trials.running)} testId="study-running" />
        <Stat label="Pruned" value={String(study.trials.pruned)} testId="study-pruned" />
        <Stat label="Failed" value={String(study.trials.failed)} testId="study-failed" />
        <Stat label="Best value" value={formatValue(study.best_trial?.value ?? null)} testId="study-best-value" />
      </SimpleGrid>
      {study.best_trial && (
        <Paper withBorder p="sm" data-testid="best-trial">
          <Text size="sm">
            Best trial <b>#{study.best_trial.number}</b>: {formatValue(study.best_trial.value)} validation, {formatValue(study.best_trial.test_metrics.accuracy ?? null, 3)} test accuracy ·{' '}
            <Code>{Object.entries(study.best_trial.params).map(([key, value]) => `${key}=${formatParam(value)}`).join(', ')}</Code>
          </Text>
        </Paper>
      )}
      {results.data && <LiftReport lift={results.data.lift} />}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <HistoryChart history={results.data?.history ?? []} />
        <ParallelCoordinates space={study.search_space} trials={rows} maximize={maximize} />
        <IntermediateChart trials={rows} />
        <ImportanceChart importances={results.data?.importances ?? {}} />
      </SimpleGrid>
      <Title order={5}>Trials</Title>
      <TrialsTable studyId={study.id} trials={rows} space={space} />
    </Stack>
  );
}
