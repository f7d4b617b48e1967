import { Anchor, Breadcrumbs, Stack } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { JobDetail } from '@/features/jobs';
import { TrainingMonitor } from '@/features/training';

export function JobRoute() {
  const jobId = Number(useParams().jobId);
  if (!Number.isInteger(jobId)) return <NotFound what="job" />;
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/jobs">
          Jobs
        </Anchor>
        <span>#{jobId}</span>
      </Breadcrumbs>
      <JobDetail jobId={jobId} extra={(job) => (job.kind === 'training.run' ? <TrainingMonitor job={job} /> : null)} />
    </Stack>
  );
}
