import { Anchor, Breadcrumbs, Group, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { isForecastingTemplate } from '@/lib/forecasting';
import {
  DeployButtons,
  ModelVersionBatchPanel,
  ModelVersionTryPanel,
  PackagesPanel,
  RetrainButton,
  WarmStartPanel,
} from '@/features/deploy';
import { CompressButton, CompressionLineage, compressionLineageOf, CompressionsList } from '@/features/compression';
import { useProject } from '@/features/projects';
import { EvaluationReport, lineageOf, ModelVersionLineage, useModelVersion } from '@/features/training';
import { useWorkspace } from '@/features/workspaces';

export function ModelVersionRoute() {
  const { t } = useTranslation('deploy');
  const modelVersionId = Number(useParams().modelVersionId);
  const navigate = useNavigate();
  const { data: version } = useModelVersion(modelVersionId);
  const { data: project } = useProject(version?.project ?? Number.NaN);
  const { data: workspace } = useWorkspace(project?.workspace ?? Number.NaN);
  const compressedFrom = compressionLineageOf(version);
  const { data: parent } = useModelVersion(compressedFrom?.parent ?? Number.NaN);
  if (!Number.isInteger(modelVersionId)) return <NotFound kind="modelVersion" />;
  const viewer = workspace?.role === 'viewer';
  const lineage = lineageOf(version);
  return (
    <Stack>
      <Breadcrumbs>
        {version && (
          <Anchor component={Link} to={`/projects/${version.project}/models`}>
            {project?.name ?? t('route.project', { id: version.project })}
          </Anchor>
        )}
        <span>{t('route.model', { name: version?.name ?? `#${modelVersionId}` })}</span>
      </Breadcrumbs>
      {version && (
        <>
          <DeployButtons
            version={version}
            disabledReason={viewer ? t('route.viewersCannotDeploy') : null}
            onDeployed={(deployment) => navigate(`/deployments/${deployment.id}/keys`)}
          />
          {lineage && <ModelVersionLineage lineage={lineage} />}
          {compressedFrom && <CompressionLineage lineage={compressedFrom} parentName={parent?.name} />}
          {/* compression makes smaller/faster variants of trained models (custom code and forecasters are not compressed) */}
          {!lineage && !isForecastingTemplate(version.template) && (
            <Group>
              <CompressButton version={version} canEdit={!viewer} />
            </Group>
          )}
          {!lineage && <CompressionsList modelVersionId={version.id} />}
          {/* custom code's versions are retrained by running the code again (its job's page) */}
          {!lineage && <WarmStartPanel version={version} canEdit={!viewer} />}
          {/* tabular models and forecasters are not warm-started: retraining is a new training run */}
          {!lineage && !version.template.startsWith('tabular') && !isForecastingTemplate(version.template) && (
            <Group>
              <RetrainButton version={version} canEdit={!viewer} />
            </Group>
          )}
          <ModelVersionTryPanel version={version} />
          {/* batch prediction does not take forecasters (the API answers template_not_supported) */}
          {!isForecastingTemplate(version.template) && <ModelVersionBatchPanel version={version} canEdit={!viewer} />}
          <PackagesPanel modelVersionId={version.id} hideWhenEmpty canEdit={!viewer} />
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
