import { Anchor, Breadcrumbs, Group, Skeleton, Stack, Tabs, Title } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { QueryState } from '@/components/QueryState';
import { CreateDatasetButton, DatasetsTable } from '@/features/datasets';
import { BatchTabLabel, CreateDeploymentButton, DeploymentsTable, PackagesPanel, ProjectBatchPanel } from '@/features/deploy';
import { JobsPanel } from '@/features/jobs';
import { ProjectHeader, useProject } from '@/features/projects';
import { ModelVersionsTable } from '@/features/training';
import { useWorkspace } from '@/features/workspaces';

// The Code and Notebooks tabs load their features only when opened (the project page stays light).
const CodePanel = lazy(() => import('@/features/customJobs').then((module) => ({ default: module.CodePanel })));
const NotebooksPanel = lazy(() => import('@/features/notebooks').then((module) => ({ default: module.NotebooksPanel })));

const TABS = ['datasets', 'models', 'deployments', 'batch', 'jobs', 'code', 'notebooks'] as const;

export function ProjectRoute() {
  const params = useParams();
  const projectId = Number(params.projectId);
  const tab = TABS.find((item) => item === params.tab) ?? 'datasets';
  const navigate = useNavigate();
  const { t } = useTranslation('projects');
  const { t: tApp } = useTranslation('app');
  const { data: project, isPending, error } = useProject(projectId);
  const { data: workspace } = useWorkspace(project?.workspace ?? Number.NaN);
  if (!Number.isInteger(projectId)) return <NotFound kind="project" />;
  if (!project) return <QueryState isPending={isPending} error={error} kind="project" />;

  const canEdit = !workspace || workspace.role !== 'viewer';
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/workspaces">
          {t('detail.breadcrumb')}
        </Anchor>
        <Anchor component={Link} to={`/workspaces/${project.workspace}`}>
          {workspace?.name ?? t('detail.workspace', { id: project.workspace })}
        </Anchor>
        <span>{project.name}</span>
      </Breadcrumbs>
      <ProjectHeader project={project} />
      <Tabs value={tab} onChange={(value) => navigate(`/projects/${project.id}/${value}`)} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="datasets" data-testid="tab-datasets">
            {t('detail.tabs.datasets')}
          </Tabs.Tab>
          <Tabs.Tab value="models" data-testid="tab-models">
            {t('detail.tabs.models')}
          </Tabs.Tab>
          <Tabs.Tab value="deployments" data-testid="tab-deployments">
            {t('detail.tabs.deployments')}
          </Tabs.Tab>
          <Tabs.Tab value="batch" data-testid="tab-batch">
            <BatchTabLabel />
          </Tabs.Tab>
          <Tabs.Tab value="jobs" data-testid="tab-jobs">
            {t('detail.tabs.jobs')}
          </Tabs.Tab>
          <Tabs.Tab value="code" data-testid="tab-code">
            {tApp('projectTabs.code')}
          </Tabs.Tab>
          <Tabs.Tab value="notebooks" data-testid="tab-notebooks">
            {tApp('projectTabs.notebooks')}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="datasets" pt="md">
          <Stack>
            <Group justify="flex-end">
              <CreateDatasetButton projectId={project.id} disabled={!canEdit} onCreated={(dataset) => navigate(`/datasets/${dataset.id}/import`)} />
            </Group>
            <DatasetsTable projectId={project.id} />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="models" pt="md">
          <ModelVersionsTable projectId={project.id} onCompare={(a, b) => navigate(`/model-versions/compare?a=${a}&b=${b}`)} />
        </Tabs.Panel>
        <Tabs.Panel value="deployments" pt="md">
          <Stack>
            <Group justify="space-between">
              <Title order={4}>{t('detail.hostedApis')}</Title>
              <CreateDeploymentButton
                projectId={project.id}
                disabled={!canEdit}
                onDeployed={(deployment) => navigate(`/deployments/${deployment.id}/keys`)}
              />
            </Group>
            <DeploymentsTable projectId={project.id} />
            <Title order={4}>{t('detail.packages')}</Title>
            <PackagesPanel projectId={project.id} canEdit={canEdit} />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="batch" pt="md">
          <ProjectBatchPanel projectId={project.id} canEdit={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="jobs" pt="md">
          <JobsPanel
            workspaceId={project.workspace}
            projectId={project.id}
            runDisabledReason={canEdit ? null : t('detail.viewersCannotRunJobs')}
          />
        </Tabs.Panel>
        <Tabs.Panel value="code" pt="md">
          <Suspense fallback={<Skeleton h={240} />}>
            <CodePanel
              projectId={project.id}
              canEdit={canEdit}
              disabledReason={canEdit ? null : t('detail.viewersCannotRunJobs')}
              onJobStarted={(jobId) => navigate(`/jobs/${jobId}`)}
              onTune={(archiveId) => navigate(`/studies/new?source=custom&project=${project.id}&code=${archiveId}`)}
            />
          </Suspense>
        </Tabs.Panel>
        <Tabs.Panel value="notebooks" pt="md">
          <Suspense fallback={<Skeleton h={240} />}>
            <NotebooksPanel projectId={project.id} canEdit={canEdit} />
          </Suspense>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
