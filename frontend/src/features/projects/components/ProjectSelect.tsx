import { Select } from '@mantine/core';
import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation('projects');
  const options = (data?.results ?? []).map((project) => ({ value: String(project.id), label: project.name }));
  return (
    <Select
      label={t('select.label')}
      placeholder={workspaceId === null ? t('select.pickWorkspace') : t('select.all')}
      data={options}
      value={value === null ? null : String(value)}
      onChange={(next) => onChange(next ? Number(next) : null)}
      disabled={workspaceId === null}
      clearable
      searchable
      nothingFoundMessage={t('select.none')}
      data-testid="project-select"
      w={240}
    />
  );
}
