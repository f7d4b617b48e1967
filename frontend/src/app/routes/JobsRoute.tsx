import { Group, Stack } from '@mantine/core';
import { useState } from 'react';
import { PageHeader } from '@/components/PageHeader';
import { JobsPanel } from '@/features/jobs';
import { ProjectSelect } from '@/features/projects';
import { WorkspaceSelect } from '@/features/workspaces';

export function JobsRoute() {
  const [workspaceId, setWorkspaceId] = useState<number | null>(null);
  const [projectId, setProjectId] = useState<number | null>(null);
  return (
    <Stack gap={0}>
      <PageHeader title="Jobs" description="Background work on the platform's workers, updated live." />
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
      <JobsPanel workspaceId={workspaceId} projectId={projectId} />
    </Stack>
  );
}
