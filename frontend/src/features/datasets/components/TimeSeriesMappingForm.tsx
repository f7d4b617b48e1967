import { Group, MultiSelect, Select, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { FILL_RULES, FREQUENCIES, type FillRule, type TimeSeriesMapping } from '../api/timeSeries';

const WIDE = '__wide__';
const INFERRED = '__inferred__';

type Option = { value: string; label: string };

/** The columns' roles a forecasting import has: each column plays at most one. */
const ROLES = ['timestamp_column', 'series_column', 'target_columns', 'known_covariates', 'static_covariates'] as const;

function usedElsewhere(mapping: TimeSeriesMapping, role: (typeof ROLES)[number]): Set<string> {
  const used = new Set<string>();
  for (const other of ROLES) {
    if (other === role) continue;
    const value = mapping[other];
    for (const name of Array.isArray(value) ? value : value ? [value] : []) used.add(name);
  }
  return used;
}

/**
 * A forecasting import's column mapping: the timestamp, the series-id column of a long table (none:
 * a wide table, one series per target column), the target columns, known-future and static
 * covariates, the frequency (the inferred one or an override) and the rule that fills missing values.
 */
export function TimeSeriesMappingForm({
  options,
  mapping,
  inferred,
  onChange,
  disabled = false,
}: {
  options: Option[];
  mapping: TimeSeriesMapping;
  /** The frequency the server inferred from the preview, when it said. */
  inferred: string | null;
  onChange: (mapping: TimeSeriesMapping) => void;
  disabled?: boolean;
}) {
  const { t } = useTranslation('datasets');
  const available = (role: (typeof ROLES)[number]) => {
    const used = usedElsewhere(mapping, role);
    return options.filter((option) => !used.has(option.value));
  };
  const wide = !mapping.series_column;
  const set = (change: TimeSeriesMapping) => onChange({ ...mapping, ...change });
  const fillRule = mapping.fill_rule ?? 'interpolate';
  const frequencyLabel = (alias: string) => t('timeSeries.frequencyOption', { alias, name: t(`timeSeries.frequencies.${alias as (typeof FREQUENCIES)[number]}`) });

  return (
    <Stack gap="sm" data-testid="ts-mapping">
      <Group align="flex-end">
        <Select
          label={t('timeSeries.timestampColumn')}
          data={available('timestamp_column')}
          value={mapping.timestamp_column || null}
          onChange={(value) => set({ timestamp_column: value ?? '' })}
          w={240}
          disabled={disabled}
          data-testid="ts-timestamp-column"
        />
        <Select
          label={t('timeSeries.seriesColumn')}
          description={t('timeSeries.seriesColumnHint')}
          data={[{ value: WIDE, label: t('timeSeries.wide') }, ...available('series_column')]}
          value={mapping.series_column || WIDE}
          onChange={(value) => set({ series_column: !value || value === WIDE ? '' : value, ...(!value || value === WIDE ? { static_covariates: [] } : {}) })}
          allowDeselect={false}
          w={240}
          disabled={disabled}
          data-testid="ts-series-column"
        />
      </Group>
      <MultiSelect
        label={t('timeSeries.targetColumns')}
        description={wide ? t('timeSeries.targetColumnsWide') : t('timeSeries.targetColumnsLong')}
        data={available('target_columns')}
        value={mapping.target_columns ?? []}
        onChange={(value) => set({ target_columns: value })}
        searchable
        disabled={disabled}
        data-testid="ts-target-columns"
      />
      <Group align="flex-start" grow>
        <MultiSelect
          label={t('timeSeries.knownCovariates')}
          description={t('timeSeries.knownCovariatesHint')}
          data={available('known_covariates')}
          value={mapping.known_covariates ?? []}
          onChange={(value) => set({ known_covariates: value })}
          searchable
          disabled={disabled}
          data-testid="ts-known-covariates"
        />
        <MultiSelect
          label={t('timeSeries.staticCovariates')}
          description={wide ? t('timeSeries.staticCovariatesWide') : t('timeSeries.staticCovariatesHint')}
          data={available('static_covariates')}
          value={mapping.static_covariates ?? []}
          onChange={(value) => set({ static_covariates: value })}
          searchable
          disabled={disabled || wide}
          data-testid="ts-static-covariates"
        />
      </Group>
      <Group align="flex-start">
        <Select
          label={t('timeSeries.frequency')}
          data={[
            { value: INFERRED, label: inferred ? t('timeSeries.inferredAs', { value: frequencyLabel(inferred) }) : t('timeSeries.inferred') },
            ...FREQUENCIES.map((alias) => ({ value: alias, label: frequencyLabel(alias) })),
          ]}
          value={mapping.frequency || INFERRED}
          onChange={(value) => set({ frequency: !value || value === INFERRED ? '' : value })}
          allowDeselect={false}
          w={240}
          disabled={disabled}
          data-testid="ts-frequency"
        />
        <Select
          label={t('timeSeries.fillRule')}
          data={FILL_RULES.map((rule) => ({ value: rule, label: t(`timeSeries.fillRules.${rule}`) }))}
          value={fillRule}
          onChange={(value) => set({ fill_rule: (value ?? 'interpolate') as FillRule })}
          allowDeselect={false}
          w={240}
          disabled={disabled}
          data-testid="ts-fill-rule"
        />
      </Group>
      <Text size="xs" c="dimmed" data-testid="ts-fill-rule-meaning">
        {t(`timeSeries.fillRuleMeaning.${fillRule}`)} {t('timeSeries.fillRuleAlways')}
      </Text>
    </Stack>
  );
}
