import { Button } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { notifySuccess } from '@/lib/notifications';
import { canChange, type Job } from '../api/jobs';
import { useRetryJob } from '../hooks/useJobs';

/** Shown on a failed or cancelled job the server says can be retried (a training resumes from its last checkpoint). */
export function RetryJobButton({ job, size = 'xs' }: { job: Pick<Job, 'id' | 'retryable' | 'my_role'>; size?: 'xs' | 'sm' }) {
  const { t } = useTranslation('jobs');
  const retryMutation = useRetryJob();
  if (!job.retryable) return null;
  const reason = canChange(job) ? null : t('actions.viewerCannot');
  return (
    <WithReason reason={reason}>
      <Button
        size={size}
        variant="light"
        disabled={!!reason}
        loading={retryMutation.isPending}
        onClick={() =>
          retryMutation.mutate(job.id, {
            onSuccess: () => notifySuccess(t('actions.retried', { id: job.id })),
          })
        }
        data-testid={`job-retry-${job.id}`}
      >
        {t('actions.retry')}
      </Button>
    </WithReason>
  );
}
