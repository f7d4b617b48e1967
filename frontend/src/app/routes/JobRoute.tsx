import { Anchor, Breadcrumbs, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { JobDetail } from '@/features/jobs';
import { TrainingMonitor } from '@/features/training';

export function JobRoute() {
  const { t } = useTranslation('jobs');
  const jobId = Number(useParams().jobId);
  if (!Number.isInteger(jobId)) return <NotFound kind="job" />;
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/jobs">
          {t('page.breadcrumb')}
        </Anchor>
        <span>#{jobId}</span>
      </Breadcrumbs>
      <JobDetail jobId={jobId} extra={(job) => (job.kind === 'training.run' ? <TrainingMonitor job={job} /> : null)} />
    </Stack>
  );
}
