import { Anchor, Breadcrumbs, Group, Stack, Tabs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { QueryState } from '@/components/QueryState';
import { JobsPanel } from '@/features/jobs';
import { CreateProjectButton, ProjectsTable } from '@/features/projects';
import { LimitsPanel, MembersPanel, useWorkspace, WorkspaceHeader } from '@/features/workspaces';

export function WorkspaceRoute() {
  const workspaceId = Number(useParams().workspaceId);
  const navigate = useNavigate();
  const { t } = useTranslation('workspaces');
  const { data: workspace, isPending, error } = useWorkspace(workspaceId);
  if (!Number.isInteger(workspaceId)) return <NotFound kind="workspace" />;
  if (!workspace) return <QueryState isPending={isPending} error={error} kind="workspace" />;

  const canEdit = workspace.role === 'owner' || workspace.role === 'editor';
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/workspaces">
          {t('detail.breadcrumb')}
        </Anchor>
        <span>{workspace.name}</span>
      </Breadcrumbs>
      <WorkspaceHeader workspace={workspace} />
      <Tabs defaultValue="projects" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="projects" data-testid="tab-projects">
            {t('detail.tabs.projects')}
          </Tabs.Tab>
          <Tabs.Tab value="members" data-testid="tab-members">
            {t('detail.tabs.members')}
          </Tabs.Tab>
          <Tabs.Tab value="jobs" data-testid="tab-jobs">
            {t('detail.tabs.jobs')}
          </Tabs.Tab>
          <Tabs.Tab value="limits" data-testid="tab-limits">
            {t('detail.tabs.limits')}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="projects" pt="md">
          <Stack>
            <Group justify="flex-end">
              <CreateProjectButton
                workspaceId={workspace.id}
                disabled={!canEdit}
                onCreated={(project) => navigate(`/projects/${project.id}`)}
              />
            </Group>
            <ProjectsTable workspaceId={workspace.id} />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="members" pt="md">
          <MembersPanel workspaceId={workspace.id} canManage={workspace.role === 'owner'} />
        </Tabs.Panel>
        <Tabs.Panel value="jobs" pt="md">
          <JobsPanel workspaceId={workspace.id} runDisabledReason={canEdit ? null : t('detail.viewersCannotRunJobs')} />
        </Tabs.Panel>
        <Tabs.Panel value="limits" pt="md">
          <LimitsPanel workspaceId={workspace.id} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
