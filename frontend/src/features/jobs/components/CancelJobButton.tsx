import { Button } from '@mantine/core';
import { notifySuccess } from '@/lib/notifications';
import { isActive } from '../api/jobs';
import type { Job } from '../api/jobs';
import { useCancelJob } from '../hooks/useJobs';

export function CancelJobButton({ job, size = 'xs' }: { job: Pick<Job, 'id' | 'status' | 'cancel_requested'>; size?: 'xs' | 'sm' }) {
  const cancelMutation = useCancelJob();
  if (!isActive(job.status)) return null;
  return (
    <Button
      size={size}
      variant="light"
      color="red"
      loading={cancelMutation.isPending}
      disabled={!!job.cancel_requested}
      onClick={() => cancelMutation.mutate(job.id, { onSuccess: () => notifySuccess(`Cancellation of job #${job.id} requested.`) })}
      data-testid={`job-cancel-${job.id}`}
    >
      {job.cancel_requested ? 'Cancelling…' : 'Cancel'}
    </Button>
  );
}
