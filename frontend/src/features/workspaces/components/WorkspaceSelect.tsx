import { Select } from '@mantine/core';
import { useWorkspaces } from '../hooks/useWorkspaces';

export function WorkspaceSelect({
  value,
  onChange,
  label = 'Workspace',
}: {
  value: number | null;
  onChange: (workspaceId: number | null) => void;
  label?: string;
}) {
  const { data, isPending } = useWorkspaces();
  const options = (data?.results ?? []).map((workspace) => ({ value: String(workspace.id), label: workspace.name }));
  return (
    <Select
      label={label}
      placeholder={isPending ? 'Loading…' : 'All workspaces'}
      data={options}
      value={value === null ? null : String(value)}
      onChange={(next) => onChange(next ? Number(next) : null)}
      clearable
      searchable
      nothingFoundMessage="No workspace"
      data-testid="workspace-select"
      w={240}
    />
  );
}
