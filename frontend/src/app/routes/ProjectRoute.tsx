import { Anchor, Breadcrumbs, Stack, Title } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { QueryState } from '@/components/QueryState';
import { JobsPanel } from '@/features/jobs';
import { ProjectHeader, useProject } from '@/features/projects';
import { useWorkspace } from '@/features/workspaces';

export function ProjectRoute() {
  const projectId = Number(useParams().projectId);
  const { data: project, isPending, error } = useProject(projectId);
  const { data: workspace } = useWorkspace(project?.workspace ?? Number.NaN);
  if (!Number.isInteger(projectId)) return <NotFound what="project" />;
  if (!project) return <QueryState isPending={isPending} error={error} what="project" />;

  const canRun = !workspace || workspace.role !== 'viewer';
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/workspaces">
          Workspaces
        </Anchor>
        <Anchor component={Link} to={`/workspaces/${project.workspace}`}>
          {workspace?.name ?? `Workspace ${project.workspace}`}
        </Anchor>
        <span>{project.name}</span>
      </Breadcrumbs>
      <ProjectHeader project={project} />
      <Title order={4} mt="md">
        Jobs
      </Title>
      <JobsPanel
        workspaceId={project.workspace}
        projectId={project.id}
        runDisabledReason={canRun ? null : 'Viewers cannot run jobs'}
      />
    </Stack>
  );
}
