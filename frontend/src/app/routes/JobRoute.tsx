import { Anchor, Breadcrumbs, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { CustomJobMonitor } from '@/features/customJobs';
import { DeployButtons } from '@/features/deploy';
import { JobDetail } from '@/features/jobs';
import { TrainingMonitor } from '@/features/training';

export function JobRoute() {
  const { t } = useTranslation('jobs');
  const { t: tDeploy } = useTranslation('deploy');
  const navigate = useNavigate();
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
      <JobDetail
        jobId={jobId}
        extra={(job) => {
          if (job.kind === 'training.run') return <TrainingMonitor job={job} />;
          if (job.kind === 'training.custom')
            return (
              <CustomJobMonitor
                job={job}
                deploy={(version) => (
                  <DeployButtons
                    version={version}
                    disabledReason={job.my_role === 'viewer' ? tDeploy('route.viewersCannotDeploy') : null}
                    onDeployed={(deployment) => navigate(`/deployments/${deployment.id}/keys`)}
                  />
                )}
              />
            );
          return null;
        }}
      />
    </Stack>
  );
}
