import { Select } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useWorkspaces } from '../hooks/useWorkspaces';

export function WorkspaceSelect({
  value,
  onChange,
  label,
}: {
  value: number | null;
  onChange: (workspaceId: number | null) => void;
  label?: string;
}) {
  const { data, isPending } = useWorkspaces();
  const { t } = useTranslation(['workspaces', 'common']);
  const options = (data?.results ?? []).map((workspace) => ({ value: String(workspace.id), label: workspace.name }));
  return (
    <Select
      label={label ?? t('select.label')}
      placeholder={isPending ? t('common:state.loading') : t('select.all')}
      data={options}
      value={value === null ? null : String(value)}
      onChange={(next) => onChange(next ? Number(next) : null)}
      clearable
      searchable
      nothingFoundMessage={t('select.none')}
      data-testid="workspace-select"
      w={240}
    />
  );
}
