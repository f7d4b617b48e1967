import { Group, Stack } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '@/components/PageHeader';
import { JobsPanel } from '@/features/jobs';
import { ProjectSelect } from '@/features/projects';
import { useWorkspaces, WorkspaceSelect } from '@/features/workspaces';

export function JobsRoute() {
  const { t } = useTranslation('jobs');
  const [workspaceId, setWorkspaceId] = useState<number | null>(null);
  const [projectId, setProjectId] = useState<number | null>(null);
  const { data: workspaces } = useWorkspaces();
  const role = workspaces?.results.find((workspace) => workspace.id === workspaceId)?.role;
  return (
    <Stack gap={0}>
      <PageHeader title={t('page.title')} description={t('page.description')} />
      <Group mb="md" align="flex-end">
        <WorkspaceSelect
          value={workspaceId}
          onChange={(next) => {
            setWorkspaceId(next);
            setProjectId(null);
          }}
        />
        <ProjectSelect workspaceId={workspaceId} value={projectId} onChange={setProjectId} />
      </Group>
      <JobsPanel workspaceId={workspaceId} projectId={projectId} runDisabledReason={role === 'viewer' ? t('actions.viewerCannotRun') : null} />
    </Stack>
  );
}
