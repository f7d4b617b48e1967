import { Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Workspace } from '../api/workspaces';
import { RoleBadge } from './RoleBadge';

export function WorkspaceHeader({ workspace }: { workspace: Workspace }) {
  const { t } = useTranslation('workspaces');
  return (
    <Stack gap={4}>
      <Group gap="sm">
        <Title order={2} data-testid="workspace-title">
          {workspace.name}
        </Title>
        <RoleBadge role={workspace.role} />
      </Group>
      {workspace.description && <Text c="dimmed">{workspace.description}</Text>}
      <Text size="sm" c="dimmed" data-testid="workspace-member-count">
        {t('memberCount', { count: workspace.member_count })}
      </Text>
    </Stack>
  );
}
