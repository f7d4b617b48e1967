import { Alert, Button, Group, NumberInput, Paper, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { notifySuccess } from '@/lib/notifications';
import type { WorkspaceLimits } from '../api/limits';
import { useUpdateWorkspaceLimits, useWorkspaceLimits } from '../hooks/useLimits';

/** An empty field means the installation's default; 0 means unlimited. */
function toInput(value: number | null | undefined): number | string {
  return value === null || value === undefined ? '' : value;
}

function fromInput(value: number | string): number | null {
  return value === '' || value === null ? null : Number(value);
}

/** An administrator's form: the workspace's own limits (empty: the default; 0: unlimited). */
function LimitsForm({ workspaceId, limits }: { workspaceId: number; limits: WorkspaceLimits }) {
  const { t } = useTranslation('workspaces');
  const update = useUpdateWorkspaceLimits(workspaceId);
  const [maxJobs, setMaxJobs] = useState<number | string>(toInput(limits.max_jobs));
  const [maxGpuJobs, setMaxGpuJobs] = useState<number | string>(toInput(limits.max_gpu_jobs));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate(
      { max_jobs: fromInput(maxJobs), max_gpu_jobs: fromInput(maxGpuJobs) },
      { onSuccess: () => notifySuccess(t('limits.saved')) },
    );
  };

  return (
    <Paper withBorder p="md" maw={560}>
      <form onSubmit={submit} data-testid="limits-form">
        <Stack gap="sm">
          <Text size="sm">{t('limits.editHelp')}</Text>
          <Group align="flex-end">
            <NumberInput
              label={t('limits.jobs')}
              min={0}
              allowDecimal={false}
              placeholder={t('limits.default')}
              value={maxJobs}
              onChange={setMaxJobs}
              data-testid="limits-max-jobs-input"
            />
            <NumberInput
              label={t('limits.gpuJobs')}
              min={0}
              allowDecimal={false}
              placeholder={t('limits.default')}
              value={maxGpuJobs}
              onChange={setMaxGpuJobs}
              data-testid="limits-max-gpu-jobs-input"
            />
            <Button type="submit" loading={update.isPending} data-testid="limits-save">
              {t('limits.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

/** What the workspace may run at once (set by an administrator) and what it runs now. */
export function LimitsPanel({ workspaceId }: { workspaceId: number }) {
  const { t } = useTranslation('workspaces');
  const { data, isPending, error } = useWorkspaceLimits(workspaceId);

  if (error) return <Alert color="red">{t('limits.loadFailed')}</Alert>;
  if (isPending || !data) return <Skeleton height={120} />;

  return (
    <Stack data-testid="limits-panel">
      <Text size="sm" c="dimmed">
        {t('limits.intro')}
      </Text>
      <Table withTableBorder maw={560}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th />
            <Table.Th>{t('limits.limit')}</Table.Th>
            <Table.Th>{t('limits.runningNow')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          <Table.Tr>
            <Table.Td>{t('limits.jobs')}</Table.Td>
            <Table.Td data-testid="limits-max-jobs">{data.effective_max_jobs === 0 ? t('limits.unlimited') : data.effective_max_jobs}</Table.Td>
            <Table.Td data-testid="limits-running">{data.running}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Td>{t('limits.gpuJobs')}</Table.Td>
            <Table.Td data-testid="limits-max-gpu-jobs">{data.effective_max_gpu_jobs === 0 ? t('limits.unlimited') : data.effective_max_gpu_jobs}</Table.Td>
            <Table.Td data-testid="limits-running-gpu">{data.running_gpu}</Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
      {data.can_edit ? (
        <LimitsForm key={data.updated_at ?? 'unset'} workspaceId={workspaceId} limits={data} />
      ) : (
        <Text size="xs" c="dimmed" data-testid="limits-staff-only">
          {t('limits.staffOnly')}
        </Text>
      )}
    </Stack>
  );
}
