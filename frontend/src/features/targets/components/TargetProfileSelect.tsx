import { NativeSelect } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatNumber } from '@/lib/numbers';
import { targetRef, type TargetProfile } from '../api/targets';
import { useTargetProfiles } from '../hooks/useTargetProfiles';

type Props = {
  /** the workspace whose own profiles are offered next to the builtins */
  workspace: number | null;
  /** a builtin's name or a workspace profile's id as a string; '' for none */
  value: string;
  onChange: (value: string, profile: TargetProfile | null) => void;
  label?: string;
  description?: string;
  error?: string;
  testId?: string;
  /** offer "no target" (the default) */
  clearable?: boolean;
};

/** Pick a deployment target profile: builtins, then the workspace's own; each option says its budgets. */
export function TargetProfileSelect({ workspace, value, onChange, label, description, error, testId = 'target-profile-select', clearable = true }: Props) {
  const { t } = useTranslation('targets');
  const profiles = useTargetProfiles(workspace);
  const rows = profiles.data ?? [];
  const budgets = (profile: TargetProfile) =>
    [
      profile.latency_budget_ms === null ? null : t('select.latency', { value: formatNumber(profile.latency_budget_ms, { maximumFractionDigits: 2 }) }),
      profile.size_budget_bytes === null ? null : t('select.size', { value: formatBytes(profile.size_budget_bytes) }),
      profile.slowdown === 1 ? null : t('select.slowdown', { value: formatNumber(profile.slowdown, { maximumFractionDigits: 2 }) }),
    ]
      .filter(Boolean)
      .join(', ');
  const data = [
    ...(clearable ? [{ value: '', label: t('select.none') }] : []),
    ...rows.map((profile) => {
      const extra = budgets(profile);
      return { value: targetRef(profile), label: extra ? `${profile.name} (${extra})` : profile.name };
    }),
  ];
  return (
    <NativeSelect
      label={label ?? t('select.label')}
      description={description}
      data={data}
      value={value}
      onChange={(event) => {
        const next = event.currentTarget.value;
        onChange(next, rows.find((profile) => targetRef(profile) === next) ?? null);
      }}
      error={error ?? (profiles.isError ? t('select.loadFailed') : undefined)}
      data-testid={testId}
    />
  );
}
