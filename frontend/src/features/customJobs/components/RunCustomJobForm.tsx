import { ActionIcon, Alert, Button, Group, NumberInput, Paper, SegmentedControl, Stack, Switch, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useCallback, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@/lib/notifications';
import { DEFAULT_LIMITS, hyperRowProblems, runBody, type HyperRow, type RunFormValues } from '../api/runForm';
import type { CodeArchive, QueueName } from '../api/types';
import { useCreateCustomJob } from '../hooks/useCustomJobs';

/**
 * Runs a code archive as a custom job: entry point, arguments, hyperparameters, requirements
 * (prefilled from the archive's requirements.txt), the dataset version it trains on, the queue,
 * the limits (empty: the platform's defaults) and whether it may use the network.
 * `datasetPicker` renders the dataset version choice (the project's datasets).
 */
export function RunCustomJobForm({
  projectId,
  archive,
  onStarted,
  disabledReason = null,
  datasetPicker,
}: {
  projectId: number;
  archive: Pick<CodeArchive, 'id' | 'name' | 'entry_point' | 'requirements'>;
  onStarted: (jobId: number) => void;
  disabledReason?: string | null;
  datasetPicker?: (value: number | null, onChange: (versionId: number | null) => void) => ReactNode;
}) {
  const { t } = useTranslation('customJobs');
  const [values, setValues] = useState<RunFormValues>(() => ({
    entryPoint: archive.entry_point,
    args: '',
    hyperparameters: [{ name: '', value: '' }],
    requirements: archive.requirements,
    datasetVersion: null,
    queue: 'cpu',
    wallTimeS: null,
    memoryMb: null,
    cpus: null,
    network: false,
    name: '',
  }));
  const create = useCreateCustomJob();
  const set = <K extends keyof RunFormValues>(key: K, value: RunFormValues[K]) => setValues((current) => ({ ...current, [key]: value }));
  const setDatasetVersion = useCallback((versionId: number | null) => setValues((current) => ({ ...current, datasetVersion: versionId })), []);
  const problems = hyperRowProblems(values.hyperparameters);
  const setRow = (index: number, row: Partial<HyperRow>) =>
    set(
      'hyperparameters',
      values.hyperparameters.map((item, at) => (at === index ? { ...item, ...row } : item)),
    );
  const blocked = disabledReason !== null || Object.keys(problems).length > 0 || create.isPending;
  const numberOrNull = (value: string | number) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

  return (
    <Paper withBorder p="md" data-testid="run-form">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (blocked) return;
          create.mutate(runBody(projectId, archive.id, values), { onSuccess: (job) => onStarted(job.id) });
        }}
      >
        <Stack>
          <Title order={5}>{t('run.title', { name: archive.name })}</Title>
          <Group grow align="flex-start">
            <TextInput
              label={t('run.entryPoint')}
              description={t('run.entryPointHint')}
              value={values.entryPoint}
              onChange={(event) => set('entryPoint', event.currentTarget.value)}
              data-testid="run-entry-point"
            />
            <TextInput
              label={t('run.name')}
              placeholder={t('run.namePlaceholder')}
              value={values.name}
              onChange={(event) => set('name', event.currentTarget.value)}
              data-testid="run-name"
            />
          </Group>
          <TextInput
            label={t('run.args')}
            description={t('run.argsHint')}
            placeholder={t('run.argsPlaceholder')}
            value={values.args}
            onChange={(event) => set('args', event.currentTarget.value)}
            data-testid="run-args"
          />
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              {t('run.hyperparameters')}
            </Text>
            <Text size="xs" c="dimmed">
              {t('run.hyperparametersHint')}
            </Text>
            {values.hyperparameters.map((row, index) => (
              <Group key={index} gap="xs" align="flex-start" data-testid="run-hyper-row">
                <TextInput
                  placeholder={t('run.hyperName')}
                  aria-label={t('run.hyperName')}
                  value={row.name}
                  onChange={(event) => setRow(index, { name: event.currentTarget.value })}
                  error={problems[index] ? t(`run.hyperProblem.${problems[index]}`) : undefined}
                  data-testid={`run-hyper-name-${index}`}
                />
                <TextInput
                  placeholder={t('run.hyperValue')}
                  aria-label={t('run.hyperValue')}
                  value={row.value}
                  onChange={(event) => setRow(index, { value: event.currentTarget.value })}
                  data-testid={`run-hyper-value-${index}`}
                />
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  mt={6}
                  aria-label={t('run.removeHyper')}
                  onClick={() => set('hyperparameters', values.hyperparameters.filter((_, at) => at !== index))}
                  data-testid={`run-hyper-remove-${index}`}
                >
                  ×
                </ActionIcon>
              </Group>
            ))}
            <Group>
              <Button
                variant="subtle"
                size="xs"
                onClick={() => set('hyperparameters', [...values.hyperparameters, { name: '', value: '' }])}
                data-testid="run-hyper-add"
              >
                {t('run.addHyper')}
              </Button>
            </Group>
          </Stack>
          <Textarea
            label={t('run.requirements')}
            description={t('run.requirementsHint')}
            autosize
            minRows={2}
            maxRows={8}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            value={values.requirements}
            onChange={(event) => set('requirements', event.currentTarget.value)}
            data-testid="run-requirements"
          />
          {datasetPicker?.(values.datasetVersion, setDatasetVersion)}
          <Group align="flex-end">
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                {t('run.queue')}
              </Text>
              <SegmentedControl
                value={values.queue}
                onChange={(value) => set('queue', value as QueueName)}
                data={[
                  { value: 'cpu', label: t('run.queues.cpu') },
                  { value: 'gpu', label: t('run.queues.gpu') },
                ]}
                data-testid="run-queue"
              />
            </Stack>
            <NumberInput
              label={t('run.wallTime')}
              placeholder={t('run.defaultValue', { value: DEFAULT_LIMITS.wall_time_s })}
              min={1}
              allowDecimal={false}
              value={values.wallTimeS ?? ''}
              onChange={(value) => set('wallTimeS', numberOrNull(value))}
              w={170}
              data-testid="run-wall-time"
            />
            <NumberInput
              label={t('run.memory')}
              placeholder={t('run.defaultValue', { value: DEFAULT_LIMITS.memory_mb })}
              min={64}
              allowDecimal={false}
              value={values.memoryMb ?? ''}
              onChange={(value) => set('memoryMb', numberOrNull(value))}
              w={170}
              data-testid="run-memory"
            />
            <NumberInput
              label={t('run.cpus')}
              placeholder={t('run.defaultValue', { value: DEFAULT_LIMITS.cpus })}
              min={1}
              allowDecimal={false}
              value={values.cpus ?? ''}
              onChange={(value) => set('cpus', numberOrNull(value))}
              w={120}
              data-testid="run-cpus"
            />
          </Group>
          <Switch
            label={t('run.network')}
            description={t('run.networkHint')}
            checked={values.network}
            onChange={(event) => set('network', event.currentTarget.checked)}
            data-testid="run-network"
          />
          {create.isError && (
            <Alert color="red" data-testid="run-error">
              {errorMessage(create.error)}
            </Alert>
          )}
          {disabledReason && (
            <Text size="sm" c="dimmed">
              {disabledReason}
            </Text>
          )}
          <Group justify="flex-end">
            <Button type="submit" disabled={blocked} loading={create.isPending} data-testid="run-submit">
              {t('run.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
