import { Button } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { notifySuccess } from '@/lib/notifications';
import type { Job } from '../api/jobs';
import { useCreateJob } from '../hooks/useJobs';

/** Queues a `system.check` job: the worker reports versions, devices and a small computation. */
export function RunSystemCheckButton({
  workspaceId,
  projectId,
  disabledReason,
  onCreated,
}: {
  workspaceId: number | null;
  projectId: number | null;
  disabledReason?: string | null;
  onCreated?: (job: Job) => void;
}) {
  const { t } = useTranslation('jobs');
  const createMutation = useCreateJob();
  const reason = workspaceId === null ? t('actions.pickWorkspace') : disabledReason;
  return (
    <WithReason reason={reason}>
      <Button
        disabled={!!reason}
        loading={createMutation.isPending}
        data-testid="run-system-check"
        onClick={() => {
          if (workspaceId === null) return;
          createMutation.mutate(
            { workspace: workspaceId, project: projectId, kind: 'system.check', params: {} },
            {
              onSuccess: (job) => {
                notifySuccess(t('actions.systemCheckQueued', { id: job.id }));
                onCreated?.(job);
              },
            },
          );
        }}
      >
        {t('actions.runSystemCheck')}
      </Button>
    </WithReason>
  );
}
