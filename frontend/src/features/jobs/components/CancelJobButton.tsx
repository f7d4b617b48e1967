import { Button } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { notifySuccess } from '@/lib/notifications';
import { canChange, isActive } from '../api/jobs';
import type { Job } from '../api/jobs';
import { useCancelJob } from '../hooks/useJobs';

export function CancelJobButton({ job, size = 'xs' }: { job: Pick<Job, 'id' | 'status' | 'cancel_requested' | 'my_role'>; size?: 'xs' | 'sm' }) {
  const { t } = useTranslation('jobs');
  const cancelMutation = useCancelJob();
  if (!isActive(job.status)) return null;
  const reason = !canChange(job) ? t('actions.viewerCannot') : job.cancel_requested ? t('actions.alreadyCancelling') : null;
  return (
    <WithReason reason={reason}>
      <Button
        size={size}
        variant="light"
        color="red"
        loading={cancelMutation.isPending}
        disabled={!!reason}
        onClick={() => cancelMutation.mutate(job.id, { onSuccess: () => notifySuccess(t('actions.cancelRequested', { id: job.id })) })}
        data-testid={`job-cancel-${job.id}`}
      >
        {job.cancel_requested ? t('actions.cancelling') : t('actions.cancel')}
      </Button>
    </WithReason>
  );
}
