import { Select } from '@mantine/core';
import { useProjects } from '../hooks/useProjects';

export function ProjectSelect({
  workspaceId,
  value,
  onChange,
}: {
  workspaceId: number | null;
  value: number | null;
  onChange: (projectId: number | null) => void;
}) {
  const { data } = useProjects(workspaceId);
  const options = (data?.results ?? []).map((project) => ({ value: String(project.id), label: project.name }));
  return (
    <Select
      label="Project"
      placeholder={workspaceId === null ? 'Pick a workspace first' : 'All projects'}
      data={options}
      value={value === null ? null : String(value)}
      onChange={(next) => onChange(next ? Number(next) : null)}
      disabled={workspaceId === null}
      clearable
      searchable
      nothingFoundMessage="No project"
      data-testid="project-select"
      w={240}
    />
  );
}
