import { useTranslation } from 'react-i18next';
import type { Deployment } from '../../api/deployments';
import { BatchPredictButton } from './BatchPredictDialog';
import { BatchRunsPanel } from './BatchRunsPanel';

type Version = { id: number; name: string; project: number; dataset?: number | null; dataset_version?: number | null; template?: string };

/** The "Batch" tab's label (deployment and project pages). */
export function BatchTabLabel() {
  const { t } = useTranslation('batch');
  return <>{t('tab')}</>;
}

/** A model version's page: "Batch predict" and this version's runs. */
export function ModelVersionBatchPanel({ version, canEdit }: { version: Version; canEdit: boolean }) {
  return (
    <BatchRunsPanel
      filters={{ model_version: version.id }}
      canEdit={canEdit}
      showVersion={false}
      actions={<BatchPredictButton version={version} canEdit={canEdit} />}
    />
  );
}

/** A deployment's "Batch" tab: batch predictions by the version it serves, recorded as started from it. */
export function DeploymentBatchPanel({ deployment, canEdit }: { deployment: Deployment; canEdit: boolean }) {
  const { t } = useTranslation('batch');
  const version = { id: deployment.model_version, name: deployment.model_version_name, project: deployment.project, template: deployment.template };
  return (
    <BatchRunsPanel
      filters={{ deployment: deployment.id }}
      canEdit={canEdit}
      title={t('runs.deploymentTitle')}
      actions={<BatchPredictButton version={version} deploymentId={deployment.id} canEdit={canEdit} />}
    />
  );
}

/** A project's "Batch" tab: every batch prediction of its model versions. */
export function ProjectBatchPanel({ projectId, canEdit }: { projectId: number; canEdit: boolean }) {
  return <BatchRunsPanel filters={{ project: projectId }} canEdit={canEdit} />;
}
