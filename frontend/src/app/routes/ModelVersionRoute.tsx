import { Anchor, Breadcrumbs, Stack } from '@mantine/core';
import { Link, useNavigate, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { DeployButtons, PackagesPanel } from '@/features/deploy';
import { useProject } from '@/features/projects';
import { EvaluationReport, useModelVersion } from '@/features/training';
import { useWorkspace } from '@/features/workspaces';

export function ModelVersionRoute() {
  const modelVersionId = Number(useParams().modelVersionId);
  const navigate = useNavigate();
  const { data: version } = useModelVersion(modelVersionId);
  const { data: project } = useProject(version?.project ?? Number.NaN);
  const { data: workspace } = useWorkspace(project?.workspace ?? Number.NaN);
  if (!Number.isInteger(modelVersionId)) return <NotFound what="model version" />;
  return (
    <Stack>
      <Breadcrumbs>
        {version && (
          <Anchor component={Link} to={`/projects/${version.project}/models`}>
            {project?.name ?? `Project ${version.project}`}
          </Anchor>
        )}
        <span>Model {version?.name ?? `#${modelVersionId}`}</span>
      </Breadcrumbs>
      {version && (
        <>
          <DeployButtons
            version={version}
            disabledReason={workspace?.role === 'viewer' ? 'Viewers cannot deploy' : null}
            onDeployed={(deployment) => navigate(`/deployments/${deployment.id}/keys`)}
          />
          <PackagesPanel modelVersionId={version.id} hideWhenEmpty canEdit={workspace?.role !== 'viewer'} />
        </>
      )}
      <EvaluationReport
        modelVersionId={modelVersionId}
        onFixLabels={(datasetId, sampleIds) => navigate(`/datasets/${datasetId}/label?samples=${sampleIds.join(',')}`)}
        onCompare={(a, b) => navigate(`/model-versions/compare?a=${a}&b=${b}`)}
      />
    </Stack>
  );
}
