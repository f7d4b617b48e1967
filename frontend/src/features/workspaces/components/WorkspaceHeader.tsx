import { Group, Stack, Text, Title } from '@mantine/core';
import type { Workspace } from '../api/workspaces';
import { RoleBadge } from './RoleBadge';

export function WorkspaceHeader({ workspace }: { workspace: Workspace }) {
  return (
    <Stack gap={4}>
      <Group gap="sm">
        <Title order={2} data-testid="workspace-title">
          {workspace.name}
        </Title>
        <RoleBadge role={workspace.role} />
      </Group>
      {workspace.description && <Text c="dimmed">{workspace.description}</Text>}
      <Text size="sm" c="dimmed">
        {workspace.member_count} {workspace.member_count === 1 ? 'member' : 'members'}
      </Text>
    </Stack>
  );
}
