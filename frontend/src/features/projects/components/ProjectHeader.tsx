import { Stack, Text, Title } from '@mantine/core';
import { formatDateTime } from '@/lib/datetime';
import type { Project } from '../api/projects';

export function ProjectHeader({ project }: { project: Project }) {
  return (
    <Stack gap={4}>
      <Title order={2} data-testid="project-title">
        {project.name}
      </Title>
      {project.description && <Text c="dimmed">{project.description}</Text>}
      <Text size="sm" c="dimmed">
        Created {formatDateTime(project.created_at)}
        {project.created_by ? ` by ${String(project.created_by)}` : ''}
      </Text>
    </Stack>
  );
}
