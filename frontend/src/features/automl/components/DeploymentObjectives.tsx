import { ActionIcon, Button, Group, NativeSelect, NumberInput, Stack, Switch, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { TargetProfileSelect } from '@/features/targets';
import { DEPLOYMENT_METRICS, MAX_OBJECTIVES, type ConstraintDraft, type ConstraintOp, type DeploymentDraft, type Direction, type StudyGoal } from '../api/multiObjective';

type Props = {
  value: DeploymentDraft;
  onChange: (value: DeploymentDraft) => void;
  /** the template's objective metric (val_acc, val_map50, ...) and its direction */
  templateMetric: StudyGoal;
  workspace: number | null;
  errors: Record<string, string>;
};

/**
 * Deployment-aware search: 1-3 objectives (the template's metric, latency on the target, model size),
 * constraints ("latency <= 5 ms"), the target profile latency is measured with, and whether trials
 * may be quantized to int8. Off by default: the study then optimizes the template's metric alone.
 */
export function DeploymentObjectives({ value, onChange, templateMetric, workspace, errors }: Props) {
  const { t } = useTranslation('automl');
  const metrics = [templateMetric.metric, ...DEPLOYMENT_METRICS];
  const metricLabel = (metric: string) => (metric === templateMetric.metric ? t('objectives.metric.template', { metric }) : t(`objectives.metric.${metric as 'latency_ms'}`));
  const metricData = metrics.map((metric) => ({ value: metric, label: metricLabel(metric) }));
  const set = (patch: Partial<DeploymentDraft>) => onChange({ ...value, ...patch });
  const setGoal = (index: number, patch: Partial<StudyGoal>) => set({ objectives: value.objectives.map((goal, i) => (i === index ? { ...goal, ...patch } : goal)) });
  const setLimit = (index: number, patch: Partial<ConstraintDraft>) => set({ constraints: value.constraints.map((limit, i) => (i === index ? { ...limit, ...patch } : limit)) });
  const unused = metrics.find((metric) => !value.objectives.some((goal) => goal.metric === metric));
  return (
    <Stack gap="sm" data-testid="deployment-objectives" data-enabled={value.enabled || undefined}>
      <Switch
        checked={value.enabled}
        onChange={(event) => set({ enabled: event.currentTarget.checked })}
        label={t('objectives.enable')}
        description={t('objectives.enableHint')}
        data-testid="study-deployment-aware"
      />
      {value.enabled && (
        <>
          <Text size="sm" fw={500}>
            {t('objectives.title')}
          </Text>
          {value.objectives.map((goal, index) => (
            <Group key={index} gap="xs" align="flex-start" data-testid={`objective-${index}`}>
              <NativeSelect
                aria-label={t('objectives.metricLabel', { number: index + 1 })}
                data={metricData}
                value={goal.metric}
                onChange={(event) => {
                  const metric = event.currentTarget.value;
                  setGoal(index, { metric, direction: metric === templateMetric.metric ? templateMetric.direction : 'minimize' });
                }}
                error={errors[`objectives[${index}].metric`]}
                data-testid={`objective-${index}-metric`}
              />
              <NativeSelect
                aria-label={t('objectives.directionLabel', { number: index + 1 })}
                data={(['maximize', 'minimize'] as const).map((direction) => ({ value: direction, label: t(`direction.${direction}`) }))}
                value={goal.direction}
                onChange={(event) => setGoal(index, { direction: event.currentTarget.value as Direction })}
                error={errors[`objectives[${index}].direction`]}
                data-testid={`objective-${index}-direction`}
              />
              <ActionIcon variant="subtle" color="red" mt={4} disabled={value.objectives.length <= 1} onClick={() => set({ objectives: value.objectives.filter((_, i) => i !== index) })} aria-label={t('objectives.remove')}>
                ×
              </ActionIcon>
            </Group>
          ))}
          {errors.objectives && (
            <Text c="red" size="xs" data-testid="objectives-error">
              {errors.objectives}
            </Text>
          )}
          <Group>
            <Button
              size="compact-sm"
              variant="light"
              disabled={value.objectives.length >= MAX_OBJECTIVES || !unused}
              onClick={() => unused && set({ objectives: [...value.objectives, { metric: unused, direction: unused === templateMetric.metric ? templateMetric.direction : 'minimize' }] })}
              data-testid="objective-add"
            >
              {t('objectives.add')}
            </Button>
          </Group>
          <Text size="sm" fw={500}>
            {t('objectives.constraintsTitle')}
          </Text>
          {value.constraints.map((limit, index) => (
            <Group key={index} gap="xs" align="flex-start" data-testid={`constraint-${index}`}>
              <NativeSelect aria-label={t('objectives.constraintMetric')} data={metricData} value={limit.metric} onChange={(event) => setLimit(index, { metric: event.currentTarget.value })} error={errors[`constraints[${index}].metric`]} data-testid={`constraint-${index}-metric`} />
              <NativeSelect aria-label={t('objectives.constraintOp')} data={['<=', '>=']} value={limit.op} onChange={(event) => setLimit(index, { op: event.currentTarget.value as ConstraintOp })} data-testid={`constraint-${index}-op`} />
              <NumberInput
                aria-label={t('objectives.constraintValue')}
                placeholder={limit.metric === 'latency_ms' ? t('objectives.ms') : limit.metric === 'size_bytes' ? t('objectives.bytes') : ''}
                value={limit.value}
                onChange={(next) => setLimit(index, { value: next === '' ? '' : Number(next) })}
                error={errors[`constraints[${index}].value`]}
                decimalScale={6}
                w={140}
                data-testid={`constraint-${index}-value`}
              />
              <ActionIcon variant="subtle" color="red" mt={4} onClick={() => set({ constraints: value.constraints.filter((_, i) => i !== index) })} aria-label={t('objectives.remove')}>
                ×
              </ActionIcon>
            </Group>
          ))}
          <Group>
            <Button size="compact-sm" variant="light" onClick={() => set({ constraints: [...value.constraints, { metric: 'latency_ms', op: '<=', value: '' }] })} data-testid="constraint-add">
              {t('objectives.addConstraint')}
            </Button>
          </Group>
          <TargetProfileSelect
            workspace={workspace}
            value={value.target}
            onChange={(target) => set({ target })}
            label={t('objectives.target')}
            description={t('objectives.targetHint')}
            error={errors.target_profile}
            testId="study-target-profile"
          />
          <Switch checked={value.quantization} onChange={(event) => set({ quantization: event.currentTarget.checked })} label={t('objectives.quantization')} description={t('objectives.quantizationHint')} data-testid="study-quantization" />
        </>
      )}
    </Stack>
  );
}
