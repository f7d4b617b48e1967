import { Alert, Button, Group, NativeSelect, NumberInput, Paper, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { ApiError } from '@/api/client';
import type { ParamValue } from '@/api/templates';
import {
  fieldErrors,
  PRUNERS,
  SAMPLERS,
  searchSpaceProblems,
  type SearchDimension,
  type Study,
  type StudyCreate,
} from '../api/studies';
import { useCreateStudy, useDatasets, useDatasetVersions, useProjects, useTemplates } from '../hooks/useStudies';
import { SearchSpaceEditor } from './SearchSpaceEditor';

type Props = {
  initial?: { project?: number; dataset?: number; version?: number };
  onCreated: (study: Study) => void;
};

const NONE = '';

function isParamValue(value: unknown): value is ParamValue {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function toId(value: string): number | null {
  return value === NONE ? null : Number(value);
}

/**
 * Create a study: the dataset version, the template's search space (editable, checked here and
 * again by the server, whose errors appear under the field they name), sampler, pruner, budget,
 * parallelism and seed.
 */
export function StudyForm({ initial, onCreated }: Props) {
  const [project, setProject] = useState<number | null>(initial?.project ?? null);
  const [dataset, setDataset] = useState<number | null>(initial?.dataset ?? null);
  const [version, setVersion] = useState<number | null>(initial?.version ?? null);
  const [name, setName] = useState('');
  const [preset, setPreset] = useState<string>('');
  const [fixed, setFixed] = useState('{}');
  const [space, setSpace] = useState<SearchDimension[] | null>(null);
  const [sampler, setSampler] = useState<StudyCreate['sampler']>('sde');
  const [pruner, setPruner] = useState<StudyCreate['pruner']>('median');
  const [nTrials, setNTrials] = useState<number>(20);
  const [timeoutMinutes, setTimeoutMinutes] = useState<number | ''>('');
  const [parallelism, setParallelism] = useState<number>(2);
  const [seed, setSeed] = useState<number>(0);
  const [reportSeeds, setReportSeeds] = useState<number>(3);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [tried, setTried] = useState(false);

  const projects = useProjects();
  const datasets = useDatasets(project);
  const versions = useDatasetVersions(dataset);
  const templates = useTemplates();
  const create = useCreateStudy();

  const datasetRow = datasets.data?.results.find((row) => row.id === dataset);
  const template = templates.data?.find((row) => row.name === datasetRow?.task_type) ?? null;
  const defaultSpace = useMemo(() => template?.search_space ?? [], [template]);
  // Once the template has loaded, its defaults fill the empty fields (adjusted while rendering).
  if (template && space === null) setSpace(defaultSpace);
  if (template && !preset && template.default_preset) setPreset(template.default_preset);

  const dims = space ?? [];
  let fixedParams: Record<string, ParamValue> | null = null;
  try {
    const parsed: unknown = JSON.parse(fixed || '{}');
    fixedParams = parsed && typeof parsed === 'object' && !Array.isArray(parsed) && Object.values(parsed).every(isParamValue) ? (parsed as Record<string, ParamValue>) : null;
  } catch {
    fixedParams = null;
  }
  const local: Record<string, string> = {
    ...searchSpaceProblems(dims),
    ...(fixedParams === null ? { fixed_params: 'Give a JSON object such as {"epochs": 5}.' } : {}),
    ...(version === null ? { dataset_version: 'Pick a dataset version.' } : {}),
  };
  const errors = { ...(tried ? local : {}), ...serverErrors };
  const parameters = (template?.params ?? []).map((param) => String(param.name)).filter((param) => param !== 'seed');

  const submit = () => {
    setTried(true);
    setServerErrors({});
    setMessage(null);
    if (Object.keys(local).length > 0 || version === null || fixedParams === null) return;
    const body: StudyCreate = {
      dataset_version: version,
      name,
      preset: preset || undefined,
      fixed_params: fixedParams,
      search_space: dims,
      sampler,
      pruner,
      n_trials: nTrials,
      timeout_seconds: timeoutMinutes === '' ? null : Math.round(timeoutMinutes * 60),
      parallelism,
      seed,
      report_seeds: reportSeeds,
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
    <Stack data-testid="study-form">
      <Paper withBorder p="md">
        <Title order={5} mb="sm">
          Data
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <NativeSelect
            label="Project"
            data={options(projects.data?.results, (row) => row.name, 'Pick a project')}
            value={project === null ? NONE : String(project)}
            onChange={(event) => {
              setProject(toId(event.currentTarget.value));
              setDataset(null);
              setVersion(null);
              setSpace(null);
            }}
            data-testid="study-project"
          />
          <NativeSelect
            label="Dataset"
            data={options(datasets.data?.results, (row) => `${row.name} (${row.task_type})`, 'Pick a dataset')}
            value={dataset === null ? NONE : String(dataset)}
            onChange={(event) => {
              setDataset(toId(event.currentTarget.value));
              setVersion(null);
              setSpace(null);
              setPreset('');
            }}
            disabled={project === null}
            data-testid="study-dataset"
          />
          <NativeSelect
            label="Dataset version"
            data={options(versions.data?.results, (row) => `${row.name} (${row.sample_count} samples)`, 'Pick a version')}
            value={version === null ? NONE : String(version)}
            onChange={(event) => setVersion(toId(event.currentTarget.value))}
            disabled={dataset === null}
            error={errors.dataset_version}
            data-testid="study-version"
          />
        </SimpleGrid>
      </Paper>

      <Paper withBorder p="md">
        <Title order={5} mb="sm">
          Search space {template && <Text span c="dimmed" size="sm">({template.title})</Text>}
        </Title>
        {template ? (
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <NativeSelect
                label="Preset every trial starts from"
                description="Also the baseline of the honest-lift report."
                data={template.presets.map((row) => String(row.name))}
                value={preset}
                onChange={(event) => setPreset(event.currentTarget.value)}
                error={errors.preset}
                data-testid="study-preset"
              />
              <Textarea
                label="Fixed parameters (JSON)"
                description='Used by every trial as given, e.g. {"epochs": 5}.'
                value={fixed}
                onChange={(event) => setFixed(event.currentTarget.value)}
                error={errors.fixed_params ?? Object.entries(errors).find(([key]) => key.startsWith('fixed_params.'))?.join(': ')}
                autosize
                minRows={1}
                data-testid="study-fixed-params"
              />
            </SimpleGrid>
            <SearchSpaceEditor value={dims} onChange={setSpace} parameters={parameters} errors={errors} onReset={() => setSpace(defaultSpace)} />
          </Stack>
        ) : (
          <Text c="dimmed" size="sm">
            Pick a dataset to load its template's default search space.
          </Text>
        )}
      </Paper>

      <Paper withBorder p="md">
        <Title order={5} mb="sm">
          Search
        </Title>
        <SimpleGrid cols={{ base: 2, sm: 4 }}>
          <TextInput label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} placeholder="optional" data-testid="study-name" />
          <NativeSelect label="Sampler" data={[...SAMPLERS]} value={sampler} onChange={(event) => setSampler(event.currentTarget.value as StudyCreate['sampler'])} error={errors.sampler} data-testid="study-sampler" />
          <NativeSelect label="Pruning" data={[...PRUNERS]} value={pruner} onChange={(event) => setPruner(event.currentTarget.value as StudyCreate['pruner'])} error={errors.pruner} data-testid="study-pruner" />
          <NumberInput label="Trials" min={1} max={10000} value={nTrials} onChange={(next) => setNTrials(Number(next) || 1)} error={errors.n_trials} data-testid="study-n-trials" />
          <NumberInput label="Wall time (minutes)" placeholder="no limit" min={1} value={timeoutMinutes} onChange={(next) => setTimeoutMinutes(next === '' ? '' : Number(next))} error={errors.timeout_seconds} data-testid="study-timeout" />
          <NumberInput label="Parallel trials" min={1} max={256} value={parallelism} onChange={(next) => setParallelism(Number(next) || 1)} error={errors.parallelism} data-testid="study-parallelism" />
          <NumberInput label="Seed" min={0} value={seed} onChange={(next) => setSeed(Number(next) || 0)} error={errors.seed} data-testid="study-seed" />
          <NumberInput label="Lift report seeds" min={0} max={10} value={reportSeeds} onChange={(next) => setReportSeeds(Number(next) || 0)} error={errors.report_seeds} data-testid="study-report-seeds" />
        </SimpleGrid>
      </Paper>

      {message && (
        <Alert color="red" title="The study was not created" data-testid="study-error">
          {message}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button onClick={submit} loading={create.isPending} data-testid="study-submit">
          Start study
        </Button>
      </Group>
    </Stack>
  );
}
