import { Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '@/lib/datetime';
import type { Project } from '../api/projects';

export function ProjectHeader({ project }: { project: Project }) {
  const { t } = useTranslation('projects');
  const date = formatDateTime(project.created_at);
  return (
    <Stack gap={4}>
      <Title order={2} data-testid="project-title">
        {project.name}
      </Title>
      {project.description && <Text c="dimmed">{project.description}</Text>}
      <Text size="sm" c="dimmed">
        {project.created_by ? t('header.createdBy', { date, user: String(project.created_by) }) : t('header.created', { date })}
      </Text>
    </Stack>
  );
}
