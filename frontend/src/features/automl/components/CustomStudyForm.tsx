import { Alert, Button, Group, NativeSelect, NumberInput, Paper, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '@/api/client';
import { WithReason } from '@/components/WithReason';
import { customProblems, type CustomStudyCreate } from '../api/customStudies';
import { fieldErrors, PRUNERS, SAMPLERS, searchSpaceProblems, type SearchDimension, type Study, type StudyCreate } from '../api/studies';
import { useCodeArchives, useCreateCustomStudy, useDatasets, useDatasetVersions, useProjects } from '../hooks/useStudies';
import { SearchSpaceEditor } from './SearchSpaceEditor';

type Props = {
  initial?: { project?: number; codeArchive?: number };
  onCreated: (study: Study) => void;
  /** The caller's role per workspace id: a viewer cannot start a study there. */
  roles?: Record<number, string | null | undefined>;
};

const NONE = '';
const FIRST_DIMENSION: SearchDimension = { name: 'lr', type: 'float', low: 0.0001, high: 0.1, log: true };

function toId(value: string): number | null {
  return value === NONE ? null : Number(value);
}

/**
 * A study over the user's own code: the code archive (and its entry point), an optional dataset
 * version the code reads, the hyperparameters to search (names typed: they become `--name=value`),
 * the metric the code reports with `run.log_metrics` and its direction, the per-trial limits and
 * the search's budget. Checked here, then by the server, whose errors show under the field they name.
 */
export function CustomStudyForm({ initial, onCreated, roles }: Props) {
  const { t } = useTranslation('automl');
  const [project, setProject] = useState<number | null>(initial?.project ?? null);
  const [code, setCode] = useState<number | null>(initial?.codeArchive ?? null);
  const [entryPoint, setEntryPoint] = useState('');
  const [dataset, setDataset] = useState<number | null>(null);
  const [version, setVersion] = useState<number | null>(null);
  const [space, setSpace] = useState<SearchDimension[]>([FIRST_DIMENSION]);
  const [metric, setMetric] = useState('');
  const [direction, setDirection] = useState<'maximize' | 'minimize'>('maximize');
  const [wallTime, setWallTime] = useState<number | ''>('');
  const [memory, setMemory] = useState<number | ''>('');
  const [name, setName] = useState('');
  const [sampler, setSampler] = useState<StudyCreate['sampler']>('tpe');
  const [pruner, setPruner] = useState<StudyCreate['pruner']>('median');
  const [nTrials, setNTrials] = useState<number>(12);
  const [parallelism, setParallelism] = useState<number>(1);
  const [seed, setSeed] = useState<number>(0);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [tried, setTried] = useState(false);

  const projects = useProjects();
  const archives = useCodeArchives(project);
  const datasets = useDatasets(project);
  const versions = useDatasetVersions(dataset);
  const create = useCreateCustomStudy();

  const archive = archives.data?.results.find((row) => row.id === code) ?? null;
  const projectRow = projects.data?.results.find((row) => row.id === project);
  const viewerReason = projectRow && roles?.[projectRow.workspace] === 'viewer' ? t('form.viewerHere') : null;
  const local: Record<string, string> = {
    ...searchSpaceProblems(space),
    ...customProblems({ code, metric, space }),
  };
  const errors = { ...(tried ? local : {}), ...serverErrors };

  const submit = () => {
    setTried(true);
    setServerErrors({});
    setMessage(null);
    if (Object.keys(local).length > 0 || code === null || viewerReason) return;
    const limits: CustomStudyCreate['limits'] = {};
    if (wallTime !== '') limits.wall_time_s = Math.round(wallTime * 60);
    if (memory !== '') limits.memory_mb = memory;
    const body: CustomStudyCreate = {
      project: project ?? undefined,
      code_archive: code,
      entry_point: entryPoint.trim() || undefined,
      dataset_version: version,
      name,
      search_space: space,
      objective: { metric: metric.trim(), direction },
      limits,
      network: false,
      sampler,
      pruner,
      n_trials: nTrials,
      parallelism,
      seed,
    };
    create.mutate(body, {
      onSuccess: (study) => onCreated(study),
      onError: (error) => {
        setMessage(error instanceof ApiError ? error.message : String(error));
        if (error instanceof ApiError) setServerErrors(fieldErrors(error.details));
      },
    });
  };

  const options = <T extends { id: number }>(rows: T[] | undefined, label: (row: T) => string, placeholder: string) => [
    { value: NONE, label: placeholder },
    ...(rows ?? []).map((row) => ({ value: String(row.id), label: label(row) })),
  ];

  return (
    <Stack data-testid="custom-study-form">
      <Paper withBorder p="md">
        <Title order={5} mb="sm">
          {t('custom.code')}
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <NativeSelect
            label={t('form.project')}
            data={options(projects.data?.results, (row) => row.name, t('form.pickProject'))}
            value={project === null ? NONE : String(project)}
            onChange={(event) => {
              setProject(toId(event.currentTarget.value));
              setCode(null);
              setDataset(null);
              setVersion(null);
            }}
            error={errors.project}
            data-testid="custom-study-project"
          />
          <NativeSelect
            label={t('custom.archive')}
            data={options(archives.data?.results, (row) => t('custom.archiveOption', { name: row.name, file: row.filename }), t('custom.pickCode'))}
            value={code === null ? NONE : String(code)}
            onChange={(event) => setCode(toId(event.currentTarget.value))}
            disabled={project === null}
            error={errors.code_archive}
            data-testid="custom-study-code"
          />
          <TextInput
            label={t('custom.entryPoint')}
            description={archive ? t('custom.entryPointDefault', { entry: archive.entry_point || '—' }) : undefined}
            placeholder={archive?.entry_point || t('form.optional')}
            value={entryPoint}
            onChange={(event) => setEntryPoint(event.currentTarget.value)}
            error={errors.entry_point}
            data-testid="custom-study-entry-point"
          />
          <NativeSelect
            label={t('custom.dataset')}
            description={t('custom.datasetHint')}
            data={options(datasets.data?.results, (row) => t('form.datasetOption', { name: row.name, task: row.task_type }), t('custom.noDataset'))}
            value={dataset === null ? NONE : String(dataset)}
            onChange={(event) => {
              setDataset(toId(event.currentTarget.value));
              setVersion(null);
            }}
            disabled={project === null}
            data-testid="custom-study-dataset"
          />
          <NativeSelect
            label={t('form.version')}
            data={options(versions.data?.results, (row) => t('form.versionOption', { name: row.name, count: row.sample_count }), t('custom.noDataset'))}
            value={version === null ? NONE : String(version)}
            onChange={(event) => setVersion(toId(event.currentTarget.value))}
            disabled={dataset === null}
            error={errors.dataset_version}
            data-testid="custom-study-version"
          />
        </SimpleGrid>
      </Paper>

      <Paper withBorder p="md">
        <Title order={5} mb="sm">
          {t('form.searchSpace')}
        </Title>
        <Text size="sm" c="dimmed" mb="xs">
          {t('custom.spaceHint')}
        </Text>
        <SearchSpaceEditor value={space} onChange={setSpace} parameters={[]} errors={errors} freeNames />
        <SimpleGrid cols={{ base: 1, sm: 2 }} mt="sm">
          <TextInput
            label={t('custom.metric')}
            description={t('custom.metricHint')}
            placeholder={t('custom.metricPlaceholder')}
            value={metric}
            onChange={(event) => setMetric(event.currentTarget.value)}
            error={errors['objective.metric'] ?? errors.objective}
            data-testid="custom-study-metric"
          />
          <NativeSelect
            label={t('custom.direction')}
            data={(['maximize', 'minimize'] as const).map((value) => ({ value, label: t(`custom.directions.${value}`) }))}
            value={direction}
            onChange={(event) => setDirection(event.currentTarget.value as 'maximize' | 'minimize')}
            error={errors['objective.direction']}
            data-testid="custom-study-direction"
          />
        </SimpleGrid>
      </Paper>

      <Paper withBorder p="md">
        <Title order={5} mb="sm">
          {t('form.search')}
        </Title>
        <SimpleGrid cols={{ base: 2, sm: 4 }}>
          <TextInput label={t('form.name')} value={name} onChange={(event) => setName(event.currentTarget.value)} placeholder={t('form.optional')} data-testid="custom-study-name" />
          <NativeSelect label={t('form.sampler')} data={SAMPLERS.map((value) => ({ value, label: t(`sampler.${value}`) }))} value={sampler} onChange={(event) => setSampler(event.currentTarget.value as StudyCreate['sampler'])} error={errors.sampler} data-testid="custom-study-sampler" />
          <NativeSelect label={t('form.pruning')} data={PRUNERS.map((value) => ({ value, label: t(`pruner.${value}`) }))} value={pruner} onChange={(event) => setPruner(event.currentTarget.value as StudyCreate['pruner'])} error={errors.pruner} data-testid="custom-study-pruner" />
          <NumberInput label={t('form.trials')} min={1} max={10000} value={nTrials} onChange={(next) => setNTrials(Number(next) || 1)} error={errors.n_trials} data-testid="custom-study-n-trials" />
          <NumberInput label={t('form.parallel')} min={1} max={256} value={parallelism} onChange={(next) => setParallelism(Number(next) || 1)} error={errors.parallelism} data-testid="custom-study-parallelism" />
          <NumberInput label={t('form.seed')} min={0} value={seed} onChange={(next) => setSeed(Number(next) || 0)} error={errors.seed} data-testid="custom-study-seed" />
          <NumberInput
            label={t('custom.wallTime')}
            placeholder={t('custom.platformDefault')}
            min={1}
            value={wallTime}
            onChange={(next) => setWallTime(next === '' ? '' : Number(next))}
            error={errors['limits.wall_time_s']}
            data-testid="custom-study-wall-time"
          />
          <NumberInput
            label={t('custom.memory')}
            placeholder={t('custom.platformDefault')}
            min={64}
            value={memory}
            onChange={(next) => setMemory(next === '' ? '' : Number(next))}
            error={errors['limits.memory_mb']}
            data-testid="custom-study-memory"
          />
        </SimpleGrid>
      </Paper>

      {message && (
        <Alert color="red" title={t('form.notCreated')} data-testid="study-error">
          {message}
        </Alert>
      )}
      <Group justify="flex-end">
        <WithReason reason={viewerReason}>
          <Button onClick={submit} loading={create.isPending} disabled={!!viewerReason} data-testid="custom-study-submit">
            {t('form.start')}
          </Button>
        </WithReason>
      </Group>
    </Stack>
  );
}
