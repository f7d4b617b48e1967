import { Anchor, Breadcrumbs, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { DEPLOYMENT_TABS, DeploymentDetail, useDeployment } from '@/features/deploy';
import { useProject } from '@/features/projects';
import { useWorkspace } from '@/features/workspaces';

export function DeploymentRoute() {
  const { t } = useTranslation('deploy');
  const params = useParams();
  const deploymentId = Number(params.deploymentId);
  const tab = DEPLOYMENT_TABS.find((item) => item === params.tab) ?? 'overview';
  const navigate = useNavigate();
  const { data: deployment } = useDeployment(deploymentId);
  const { data: project } = useProject(deployment?.project ?? Number.NaN);
  const { data: workspace } = useWorkspace(project?.workspace ?? Number.NaN);
  if (!Number.isInteger(deploymentId)) return <NotFound kind="deployment" />;
  const canEdit = !workspace || workspace.role !== 'viewer';
  return (
    <Stack>
      <Breadcrumbs>
        {deployment && (
          <Anchor component={Link} to={`/projects/${deployment.project}`}>
            {project?.name ?? t('route.project', { id: deployment.project })}
          </Anchor>
        )}
        {deployment && (
          <Anchor component={Link} to={`/projects/${deployment.project}/deployments`}>
            {t('route.deployments')}
          </Anchor>
        )}
        <span>{deployment?.name ?? `#${deploymentId}`}</span>
      </Breadcrumbs>
      <DeploymentDetail
        deploymentId={deploymentId}
        tab={tab}
        canEdit={canEdit}
        onTabChange={(next) => navigate(`/deployments/${deploymentId}/${next}`, { replace: true })}
        onDeleted={(projectId) => navigate(`/projects/${projectId}/deployments`)}
      />
    </Stack>
  );
}
