import { Alert, Button, Group, NativeSelect, NumberInput, Paper, SegmentedControl, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '@/api/client';
import { WithReason } from '@/components/WithReason';
import { formatSeconds } from '@/lib/datetime';
import type { ParamValue } from '@/api/templates';
import {
  fieldErrors,
  PRUNERS,
  searchSpaceProblems,
  type SearchDimension,
  type Study,
  type StudyCreate,
  type StudyDefaults,
} from '../api/studies';
import { useCreateStudy, useDatasets, useDatasetVersions, useProjects, useStudyDefaults, useTemplates } from '../hooks/useStudies';
import { ALL_SAMPLERS, deploymentDraft, goalProblems, MULTI_OBJECTIVE_SAMPLERS, QUANTIZATION_DIMENSION, type DeploymentDraft, type Direction, type SamplerChoice } from '../api/multiObjective';
import { CustomStudyForm } from './CustomStudyForm';
import { DeploymentObjectives } from './DeploymentObjectives';
import { SearchSpaceEditor } from './SearchSpaceEditor';

export type StudySource = 'template' | 'custom';

type Props = {
  initial?: { project?: number; dataset?: number; version?: number; source?: StudySource; codeArchive?: number };
  onCreated: (study: Study) => void;
  /** The caller's role per workspace id (from the workspaces list): a viewer cannot start a study there. */
  roles?: Record<number, string | null | undefined>;
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
/** Why the budget fields hold the values they do: the workers online and, once measured, a trial's time. */
function DefaultsReason({ defaults }: { defaults: StudyDefaults }) {
  const { t } = useTranslation('automl');
  const trials = t('form.defaults.trials', { count: defaults.parallelism });
  const workers =
    defaults.workers === 0
      ? t('form.defaults.noWorker', { queue: defaults.queue, trials })
      : t('form.defaults.reason', {
          workers: t('form.defaults.workers', { count: defaults.workers }),
          jobs: t('form.defaults.jobs', { count: defaults.slots }),
          trials,
        });
  const estimate =
    defaults.trial_seconds !== null && defaults.estimated_seconds !== null
      ? t('form.defaults.estimate', {
          count: defaults.measured_runs,
          trial: formatSeconds(defaults.trial_seconds),
          n: defaults.n_trials,
          total: formatSeconds(defaults.estimated_seconds),
        })
      : t('form.defaults.unmeasured');
  return (
    <Text size="xs" c="dimmed" mt="xs" data-testid="study-defaults-reason" data-parallelism={defaults.parallelism}>
      {workers}. {estimate}
    </Text>
  );
}

/**
 * A new study: over a task template on a dataset version (the template's search space), or over the
 * user's own code (a code archive; its hyperparameters and the metric it reports are the user's).
 */
export function StudyForm({ initial, onCreated, roles }: Props) {
  const { t } = useTranslation('automl');
  const [source, setSource] = useState<StudySource>(initial?.source ?? 'template');
  return (
    <Stack>
      <SegmentedControl
        value={source}
        onChange={(value) => setSource(value as StudySource)}
        data={[
          { value: 'template', label: t('custom.sourceTemplate') },
          { value: 'custom', label: t('custom.sourceCustom') },
        ]}
        data-testid="study-source"
      />
      {source === 'custom' ? (
        <CustomStudyForm initial={{ project: initial?.project, codeArchive: initial?.codeArchive }} onCreated={onCreated} roles={roles} />
      ) : (
        <TemplateStudyForm initial={initial} onCreated={onCreated} roles={roles} />
      )}
    </Stack>
  );
}

function TemplateStudyForm({ initial, onCreated, roles }: Props) {
  const { t } = useTranslation('automl');
  const [project, setProject] = useState<number | null>(initial?.project ?? null);
  const [dataset, setDataset] = useState<number | null>(initial?.dataset ?? null);
  const [version, setVersion] = useState<number | null>(initial?.version ?? null);
  const [name, setName] = useState('');
  const [preset, setPreset] = useState<string>('');
  const [fixed, setFixed] = useState('{}');
  const [space, setSpace] = useState<SearchDimension[] | null>(null);
  const [sampler, setSampler] = useState<SamplerChoice>('sde');
  const [deployment, setDeployment] = useState<DeploymentDraft | null>(null);
  const [pruner, setPruner] = useState<StudyCreate['pruner']>('median');
  const [nTrials, setNTrials] = useState<number>(12);
  const [timeoutMinutes, setTimeoutMinutes] = useState<number | ''>('');
  const [parallelism, setParallelism] = useState<number>(1);
  // the budget fields follow the workers online until the user edits them
  const [budgetTouched, setBudgetTouched] = useState({ nTrials: false, timeout: false, parallelism: false });
  const [appliedDefaults, setAppliedDefaults] = useState<StudyDefaults | null>(null);
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
  const defaults = useStudyDefaults(template?.name ?? null).data ?? null;
  if (defaults && defaults !== appliedDefaults) {
    setAppliedDefaults(defaults);
    if (!budgetTouched.parallelism) setParallelism(defaults.parallelism);
    if (!budgetTouched.nTrials) setNTrials(defaults.n_trials);
  }
  // Until edited, the wall time follows the measured trial time, the trials and how many run at once
  // (never more than the workers' slots), half as long again as that estimate (as the server sizes it).
  const suggestedMinutes = (): number | '' => {
    if (!defaults || defaults.trial_seconds === null) return '';
    const atOnce = Math.max(1, Math.min(parallelism, Math.max(1, defaults.slots)));
    return Math.ceil((Math.ceil(nTrials / atOnce) * defaults.trial_seconds * 1.5) / 60);
  };
  const wallMinutes = budgetTouched.timeout ? timeoutMinutes : suggestedMinutes();
  const projectRow = projects.data?.results.find((row) => row.id === project);
  const viewerReason = projectRow && roles?.[projectRow.workspace] === 'viewer' ? t('form.viewerHere') : null;
  // Once the template has loaded, its defaults fill the empty fields (adjusted while rendering).
  if (template && space === null) setSpace(defaultSpace);
  if (template && !preset && template.default_preset) setPreset(template.default_preset);
  // (a template without a declared objective offers no deployment section)
  const templateGoal = template?.objective ? { metric: template.objective.metric, direction: template.objective.direction as Direction } : null;
  if (templateGoal && deployment?.objectives[0]?.metric !== templateGoal.metric && !deployment?.enabled) setDeployment(deploymentDraft(templateGoal.metric, templateGoal.direction));
  const deploymentOn = !!deployment?.enabled;
  const multiObjective = deploymentOn && (deployment?.objectives.length ?? 0) > 1;
  const samplers: readonly SamplerChoice[] = multiObjective ? MULTI_OBJECTIVE_SAMPLERS : ALL_SAMPLERS;
  if (!samplers.includes(sampler)) setSampler('sde');
  // Optuna prunes single-objective studies only (the server stores none for several objectives)
  if (multiObjective && pruner !== 'none') setPruner('none');

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
    ...(fixedParams === null ? { fixed_params: t('problems.fixedJson') } : {}),
    ...(version === null ? { dataset_version: t('problems.pickVersion') } : {}),
    ...(deployment && deploymentOn
      ? Object.fromEntries(Object.entries(goalProblems(deployment.objectives, deployment.constraints)).map(([field, key]) => [field, t(key as 'problems.number')]))
      : {}),
  };
  const errors = { ...(tried ? local : {}), ...serverErrors };
  const parameters = [
    ...(template?.params ?? []).map((param) => String(param.name)).filter((param) => param !== 'seed'),
    // a deployment-aware study may also search int8 (the server accepts it there)
    ...(deploymentOn ? [QUANTIZATION_DIMENSION.name] : []),
  ];

  const submit = () => {
    setTried(true);
    setServerErrors({});
    setMessage(null);
    if (Object.keys(local).length > 0 || version === null || fixedParams === null || viewerReason) return;
    const searchQuantization = deploymentOn && deployment?.quantization && !dims.some((dim) => dim.name === QUANTIZATION_DIMENSION.name);
    const body: StudyCreate = {
      dataset_version: version,
      name,
      preset: preset || undefined,
      fixed_params: fixedParams,
      search_space: searchQuantization ? [...dims, { ...QUANTIZATION_DIMENSION, choices: [...QUANTIZATION_DIMENSION.choices] }] : dims,
      ...(deployment && deploymentOn
        ? {
            objectives: deployment.objectives,
            constraints: deployment.constraints.map((limit) => ({ ...limit, value: Number(limit.value) })),
            ...(deployment.target ? { target_profile: /^\d+$/.test(deployment.target) ? Number(deployment.target) : deployment.target } : {}),
          }
        : {}),
      sampler,
      pruner,
      n_trials: nTrials,
      timeout_seconds: wallMinutes === '' ? null : Math.round(wallMinutes * 60),
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
          {t('form.data')}
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <NativeSelect
            label={t('form.project')}
            data={options(projects.data?.results, (row) => row.name, t('form.pickProject'))}
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
            label={t('form.dataset')}
            data={options(datasets.data?.results, (row) => t('form.datasetOption', { name: row.name, task: row.task_type }), t('form.pickDataset'))}
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
            label={t('form.version')}
            data={options(versions.data?.results, (row) => t('form.versionOption', { name: row.name, count: row.sample_count }), t('form.pickVersion'))}
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
          {t('form.searchSpace')}{' '}
          {template && (
            <Text span c="dimmed" size="sm">
              ({template.title})
            </Text>
          )}
        </Title>
        {template ? (
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <NativeSelect
                label={t('form.preset')}
                description={t('form.presetHint')}
                data={template.presets.map((row) => String(row.name))}
                value={preset}
                onChange={(event) => setPreset(event.currentTarget.value)}
                error={errors.preset}
                data-testid="study-preset"
              />
              <Textarea
                label={t('form.fixed')}
                description={t('form.fixedHint')}
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
            {t('form.pickDatasetFirst')}
          </Text>
        )}
      </Paper>

      {template && templateGoal && deployment && (
        <Paper withBorder p="md">
          <Title order={5} mb="sm">
            {t('objectives.section')}
          </Title>
          <DeploymentObjectives value={deployment} onChange={setDeployment} templateMetric={templateGoal} workspace={projectRow?.workspace ?? null} errors={errors} />
        </Paper>
      )}

      <Paper withBorder p="md">
        <Title order={5} mb="sm">
          {t('form.search')}
        </Title>
        <SimpleGrid cols={{ base: 2, sm: 4 }}>
          <TextInput label={t('form.name')} value={name} onChange={(event) => setName(event.currentTarget.value)} placeholder={t('form.optional')} data-testid="study-name" />
          <NativeSelect label={t('form.sampler')} data={samplers.map((value) => ({ value, label: t(`sampler.${value}`) }))} value={sampler} onChange={(event) => setSampler(event.currentTarget.value as SamplerChoice)} error={errors.sampler} data-testid="study-sampler" />
          <NativeSelect label={t('form.pruning')} data={PRUNERS.map((value) => ({ value, label: t(`pruner.${value}`) }))} value={pruner} onChange={(event) => setPruner(event.currentTarget.value as StudyCreate['pruner'])} disabled={multiObjective} description={multiObjective ? t('objectives.noPruning') : undefined} error={errors.pruner} data-testid="study-pruner" />
          <NumberInput
            label={t('form.trials')}
            min={1}
            max={10000}
            value={nTrials}
            onChange={(next) => {
              setBudgetTouched((touched) => ({ ...touched, nTrials: true }));
              setNTrials(Number(next) || 1);
            }}
            error={errors.n_trials}
            data-testid="study-n-trials"
          />
          <NumberInput
            label={t('form.wallTime')}
            placeholder={t('form.noLimit')}
            min={1}
            value={wallMinutes}
            onChange={(next) => {
              setBudgetTouched((touched) => ({ ...touched, timeout: true }));
              setTimeoutMinutes(next === '' ? '' : Number(next));
            }}
            error={errors.timeout_seconds}
            data-testid="study-timeout"
          />
          <NumberInput
            label={t('form.parallel')}
            min={1}
            max={256}
            value={parallelism}
            onChange={(next) => {
              setBudgetTouched((touched) => ({ ...touched, parallelism: true }));
              setParallelism(Number(next) || 1);
            }}
            error={errors.parallelism}
            data-testid="study-parallelism"
          />
          <NumberInput label={t('form.seed')} min={0} value={seed} onChange={(next) => setSeed(Number(next) || 0)} error={errors.seed} data-testid="study-seed" />
          <NumberInput label={t('form.reportSeeds')} min={0} max={10} value={reportSeeds} onChange={(next) => setReportSeeds(Number(next) || 0)} error={errors.report_seeds} data-testid="study-report-seeds" />
        </SimpleGrid>
        {defaults && <DefaultsReason defaults={defaults} />}
      </Paper>

      {message && (
        <Alert color="red" title={t('form.notCreated')} data-testid="study-error">
          {message}
        </Alert>
      )}
      <Group justify="flex-end">
        <WithReason reason={viewerReason}>
          <Button onClick={submit} loading={create.isPending} disabled={!!viewerReason} data-testid="study-submit">
            {t('form.start')}
          </Button>
        </WithReason>
      </Group>
    </Stack>
  );
}
