import { Accordion, Alert, Badge, Button, Group, NumberInput, Paper, Select, SimpleGrid, Skeleton, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '@/api/client';
import type { components } from '@/api/schema';
import { WithReason } from '@/components/WithReason';
import { useProject } from '@/features/projects';
import { TargetProfileSelect } from '@/features/targets';
import { translateDynamic } from '@/i18n';
import { isForecastingTemplate } from '@/lib/forecasting';
import { errorMessage } from '@/lib/notifications';
import { formatNumber } from '@/lib/numbers';
import { backboneFits, formatCount, type Backbone } from '../api/backbones';
import type { Job } from '../api/trainingJobs';
import { useBackbones, useStartTraining, useTemplates, useTrainingEstimates } from '../hooks/useTraining';
import { AdvancedSettings, type Overrides } from './AdvancedSettings';
import { BackbonesPanel } from './BackbonesPanel';
import { recommendationOf } from '../api/recommendations';
import { PresetEstimates, WorkersSummary } from './PresetEstimates';
import { PresetRecommendationPanel } from './PresetRecommendation';

type DatasetVersion = components['schemas']['DatasetVersion'];

/** Server validation details keyed by field: `params.<name>` go to that parameter's input. */
function splitTrainingErrors(error: unknown): { params: Record<string, string>; fields: Record<string, string>; other: string | null } {
  const params: Record<string, string> = {};
  const fields: Record<string, string> = {};
  if (!(error instanceof ApiError)) return { params, fields, other: error ? errorMessage(error) : null };
  const details = error.details && typeof error.details === 'object' ? (error.details as Record<string, unknown>) : {};
  for (const [key, value] of Object.entries(details)) {
    const message = Array.isArray(value) ? value.map(String).join(' ') : String(value);
    if (key.startsWith('params.')) params[key.slice('params.'.length)] = message;
    else fields[key] = message;
  }
  const known = Object.keys(params).length > 0 || 'preset' in fields || 'dataset_version' in fields || 'backbone' in fields || 'target_profile' in fields || 'processes' in fields;
  return { params, fields, other: known ? null : errorMessage(error) };
}

const NO_BACKBONE = 'none';

const PRESET_VALUES = ['model', 'epochs', 'image_size'] as const;

// templates whose trainer runs data-parallel (the server's training.services.DISTRIBUTED_TEMPLATES)
const DISTRIBUTED_TEMPLATES = ['image_classification'];

/**
 * Start a training run: a dataset version, a preset card, optional pretrained weights (a valid
 * backbone of the project, uploaded and checked right here), and advanced settings generated from
 * the template's parameters. The server's validation messages show on the fields they concern.
 */
export function TrainingForm({
  taskType,
  projectId,
  versions,
  disabled = false,
  onStarted,
}: {
  taskType: string;
  projectId: number;
  versions: DatasetVersion[];
  disabled?: boolean;
  onStarted: (job: Job) => void;
}) {
  const { t } = useTranslation(['training', 'common']);
  const { data: templates, isPending, isError, error } = useTemplates();
  const template = templates?.find((item) => item.name === taskType);
  const params = template?.params ?? [];
  const presets = template?.presets ?? [];
  const [versionId, setVersionId] = useState<number | null>(null);
  const [presetName, setPresetName] = useState<string | null>(null);
  const [overrides, setOverrides] = useState<Overrides>({});
  const [advancedOpen, setAdvancedOpen] = useState<string | null>(null);
  const [weightsOpen, setWeightsOpen] = useState<string | null>(null);
  const [backboneId, setBackboneId] = useState<number | null>(null);
  // false: run the preset's values as declared (adapt=false), not fitted to the data and workers
  const [adapt, setAdapt] = useState(true);
  // a builtin target's name or a workspace profile's id ('' : no target)
  const [target, setTarget] = useState('');
  // data-parallel processes on the worker's host (1: one process; '' while the field is being edited)
  const [processes, setProcesses] = useState<number | string>(1);
  const project = useProject(projectId);
  // An upload from this form is chosen once its check finds it valid (unless another was picked).
  const [awaitingId, setAwaitingId] = useState<number | null>(null);
  const backbones = useBackbones(projectId);
  const start = useStartTraining();
  const chosenVersion = versionId ?? versions[0]?.id ?? null;
  const estimates = useTrainingEstimates(chosenVersion);

  if (isPending) return <Skeleton h={240} />;
  if (isError) return <Alert color="red">{errorMessage(error)}</Alert>;
  if (!template) return <Alert color="red">{t('form.noTemplate', { taskType })}</Alert>;

  const backboneLabel = (backbone: Backbone): string => {
    const summary = backbone.summary;
    return summary
      ? t('form.backboneOption', {
          name: backbone.name,
          architecture: summary.architecture ?? t('form.unrecognised'),
          parameters: formatCount(summary.parameters),
        })
      : backbone.name;
  };
  const estimateOf = (name: string) => estimates.data?.presets.find((item) => item.preset === name);
  const startReason = disabled ? t('common:permissions.viewerReadOnly') : chosenVersion === null ? t('form.reasons.noVersion') : null;
  const chosenPreset = presetName ?? template.default_preset;
  const preset = presets.find((item) => item.name === chosenPreset);
  // the chosen preset fitted to the version's data and the workers online (from the estimates)
  const recommendation = recommendationOf(estimateOf(chosenPreset));
  const errors = splitTrainingErrors(start.error);
  const validBackbones = (backbones.data?.results ?? []).filter((backbone) => backbone.status === 'valid');
  const chosenBackbone =
    validBackbones.find((backbone) => backbone.id === backboneId) ??
    (backboneId === null ? validBackbones.find((backbone) => backbone.id === awaitingId) : undefined) ??
    null;
  const modelDefault = params.find((param) => param.name === 'model')?.default;
  const rawModel = overrides.model ?? preset?.values.model ?? modelDefault;
  const model = typeof rawModel === 'string' ? rawModel : null;
  const misfit = chosenBackbone !== null && model !== null && !backboneFits(chosenBackbone, model);

  const submit = () => {
    if (chosenVersion === null) return;
    const body = { dataset_version: chosenVersion, template: template.name, preset: chosenPreset, params: overrides, ...(adapt ? {} : { adapt: false }), ...(target ? { target_profile: /^\d+$/.test(target) ? Number(target) : target } : {}), ...(typeof processes === 'number' && processes !== 1 ? { processes } : {}) };
    start.mutate(chosenBackbone ? { ...body, backbone: chosenBackbone.id } : body, {
      onSuccess: (job) => onStarted(job),
      onError: (failure) => {
        const problems = splitTrainingErrors(failure);
        if (Object.keys(problems.params).length > 0 || 'processes' in problems.fields) setAdvancedOpen('advanced');
        if ('backbone' in problems.fields) setWeightsOpen('weights');
      },
    });
  };

  return (
    <Stack data-testid="training-form">
      {versions.length === 0 ? (
        <Alert color="yellow" data-testid="training-no-versions">
          {t('form.noVersions')}
        </Alert>
      ) : (
        <Select
          label={t('form.datasetVersion')}
          data={versions.map((version) => ({
            value: String(version.id),
            label: t('form.versionOption', {
              name: version.name,
              samples: formatNumber(version.sample_count),
              classes: formatNumber(version.classes.length),
            }),
          }))}
          value={chosenVersion === null ? null : String(chosenVersion)}
          onChange={(value) => value && setVersionId(Number(value))}
          allowDeselect={false}
          w={420}
          error={errors.fields.dataset_version}
          data-testid="training-version-select"
        />
      )}

      <Stack gap={4}>
        <Title order={5}>{t('form.preset')}</Title>
        <Text size="sm" c="dimmed">
          {t('form.presetHint')}
        </Text>
        {estimates.data ? (
          <WorkersSummary workers={estimates.data.workers} />
        ) : estimates.isError ? (
          <Text size="sm" c="red" data-testid="estimates-error">
            {t('estimates.failed', { message: errorMessage(estimates.error) })}
          </Text>
        ) : chosenVersion !== null ? (
          <Text size="sm" c="dimmed">
            {t('estimates.loading')}
          </Text>
        ) : null}
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          {presets.map((item) => {
            const selected = item.name === chosenPreset;
            const estimate = estimateOf(item.name);
            return (
              <UnstyledButton key={item.name} onClick={() => setPresetName(item.name)} data-testid={`preset-card-${item.name}`} data-selected={selected || undefined}>
                <Paper
                  withBorder
                  p="md"
                  h="100%"
                  style={{ borderColor: selected ? 'var(--mantine-color-blue-6)' : undefined, borderWidth: selected ? 2 : 1 }}
                >
                  <Group justify="space-between" mb={4}>
                    <Text fw={700}>{translateDynamic(`training:form.presetTitles.${item.name}`, item.title)}</Text>
                    {item.name === template.default_preset && (
                      <Badge size="xs" variant="light">
                        {t('form.default')}
                      </Badge>
                    )}
                  </Group>
                  <Text size="sm" c="dimmed">
                    {translateDynamic(`training:form.presetDescriptions.${template.name}.${item.name}`, item.description)}
                  </Text>
                  <Text size="xs" c="dimmed" mt={6}>
                    {PRESET_VALUES.filter((name) => name in item.values)
                      .map((name) => t(`form.presetValues.${name}`, { value: String(item.values[name]) }))
                      .join(' · ')}
                  </Text>
                  {estimate && estimates.data && <PresetEstimates estimate={estimate} workers={estimates.data.workers} />}
                </Paper>
              </UnstyledButton>
            );
          })}
        </SimpleGrid>
        {recommendation && (
          <PresetRecommendationPanel recommendation={recommendation} params={params} kept={Object.keys(overrides)} adapt={adapt} onAdaptChange={setAdapt} />
        )}
        {errors.fields.preset && (
          <Text c="red" size="sm" data-testid="training-preset-error">
            {errors.fields.preset}
          </Text>
        )}
      </Stack>

      {/* a forecaster learns from the series themselves: no pretrained network to start from */}
      {!isForecastingTemplate(template.name) && (
        <Accordion variant="contained" value={weightsOpen} onChange={setWeightsOpen} data-testid="pretrained-weights">
          <Accordion.Item value="weights">
            <Accordion.Control data-testid="pretrained-weights-toggle">
              <Group gap="xs">
                <Text>{t('form.weights')}</Text>
                {chosenBackbone && (
                  <Badge size="sm" variant="light" data-testid="pretrained-weights-chosen">
                    {chosenBackbone.name}
                  </Badge>
                )}
              </Group>
            </Accordion.Control>
            <Accordion.Panel>
              <Stack>
                <Select
                  label={t('form.initFrom')}
                  description={t('form.initFromHelp')}
                  data={[
                    { value: NO_BACKBONE, label: t('form.fromScratch') },
                    ...validBackbones.map((backbone) => ({ value: String(backbone.id), label: backboneLabel(backbone) })),
                  ]}
                  value={chosenBackbone ? String(chosenBackbone.id) : NO_BACKBONE}
                  onChange={(value) => {
                    setBackboneId(value && value !== NO_BACKBONE ? Number(value) : null);
                    setAwaitingId(null);
                  }}
                  allowDeselect={false}
                  w={420}
                  error={errors.fields.backbone}
                  data-testid="training-backbone-select"
                />
                {misfit && chosenBackbone && (
                  <Alert color="yellow" variant="light" data-testid="training-backbone-misfit">
                    {t('form.misfit', {
                      name: chosenBackbone.name,
                      fits: chosenBackbone.summary?.fits.join(', ') || t('form.noBuiltInModels'),
                      model,
                    })}
                  </Alert>
                )}
                <BackbonesPanel
                  projectId={projectId}
                  canEdit={!disabled}
                  onUploaded={(backbone) => {
                    setBackboneId(null);
                    setAwaitingId(backbone.id);
                  }}
                />
              </Stack>
            </Accordion.Panel>
          </Accordion.Item>
        </Accordion>
      )}

      <TargetProfileSelect
        workspace={project.data?.workspace ?? null}
        value={target}
        onChange={(next) => setTarget(next)}
        label={t('target.label')}
        description={t('target.hint')}
        error={errors.fields.target_profile}
        testId="training-target-profile"
      />

      <Accordion variant="contained" value={advancedOpen} onChange={setAdvancedOpen} data-testid="advanced-settings">
        <Accordion.Item value="advanced">
          <Accordion.Control data-testid="advanced-settings-toggle">{t('form.advanced')}</Accordion.Control>
          <Accordion.Panel>
            <AdvancedSettings params={params} preset={preset} overrides={overrides} errors={errors.params} onChange={setOverrides} template={template.name} />
            {DISTRIBUTED_TEMPLATES.includes(template.name) && (
              <NumberInput
                mt="md"
                label={t('form.processes')}
                description={t('form.processesHint')}
                min={1}
                step={1}
                allowDecimal={false}
                value={processes}
                onChange={setProcesses}
                error={errors.fields.processes}
                data-testid="training-processes"
              />
            )}
          </Accordion.Panel>
        </Accordion.Item>
      </Accordion>

      {(errors.other || Object.keys(errors.params).length > 0) && (
        <Alert color="red" variant="light" data-testid="training-error">
          {errors.other ??
            t('form.checkAdvanced', {
              problems: Object.entries(errors.params)
                .map(([name, message]) => `${name}: ${message}`)
                .join('; '),
            })}
        </Alert>
      )}
      <Group>
        <WithReason reason={startReason}>
          <Button size="md" onClick={submit} disabled={startReason !== null} loading={start.isPending} data-testid="training-start">
            {t('form.start')}
          </Button>
        </WithReason>
      </Group>
    </Stack>
  );
}
