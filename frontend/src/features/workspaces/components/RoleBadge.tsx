import { Badge } from '@mantine/core';
import { translateDynamic } from '@/i18n';

const ROLE_COLORS: Record<string, string> = { owner: 'grape', editor: 'blue', viewer: 'gray', annotator: 'orange' };

export function RoleBadge({ role }: { role: string | null | undefined }) {
  if (!role) return null;
  return (
    <Badge variant="light" color={ROLE_COLORS[role] ?? 'gray'} data-testid="role-badge">
      {translateDynamic(`workspaces:roles.${role}`, role)}
    </Badge>
  );
}
