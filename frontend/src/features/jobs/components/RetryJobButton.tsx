import { Button } from '@mantine/core';
import { notifySuccess } from '@/lib/notifications';
import type { Job } from '../api/jobs';
import { useRetryJob } from '../hooks/useJobs';

/** Shown on a failed or cancelled job the server says can be retried (a training resumes from its last checkpoint). */
export function RetryJobButton({ job, size = 'xs' }: { job: Pick<Job, 'id' | 'retryable'>; size?: 'xs' | 'sm' }) {
  const retryMutation = useRetryJob();
  if (!job.retryable) return null;
  return (
    <Button
      size={size}
      variant="light"
      loading={retryMutation.isPending}
      onClick={() =>
        retryMutation.mutate(job.id, {
          onSuccess: () => notifySuccess(`Job #${job.id} queued again; it resumes from its last checkpoint.`),
        })
      }
      data-testid={`job-retry-${job.id}`}
    >
      Retry
    </Button>
  );
}
