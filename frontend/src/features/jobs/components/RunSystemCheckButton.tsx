import { Button, Tooltip } from '@mantine/core';
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
  const createMutation = useCreateJob();
  const reason = workspaceId === null ? 'Pick a workspace to run the check in' : disabledReason;
  return (
    <Tooltip label={reason} disabled={!reason}>
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
                notifySuccess(`System check #${job.id} queued.`);
                onCreated?.(job);
              },
            },
          );
        }}
      >
        Run system check
      </Button>
    </Tooltip>
  );
}
