import { Alert, Badge, Button, Checkbox, CloseButton, Group, Pagination, Paper, Select, SimpleGrid, Skeleton, Stack, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Stat } from '@/components/Stat';
import { WithReason } from '@/components/WithReason';
import { errorMessage, notifySuccess } from '@/lib/notifications';
import { formatNumber, formatPercent } from '@/lib/numbers';
import { getProfile, type Dataset } from '../api/datasets';
import { datasetKeys } from '../api/keys';
import {
  FILL_RULES,
  FREQUENCIES,
  getSeriesPoints,
  isTimeSeriesProfile,
  isTimeSeriesSchema,
  updateTimeSeriesSettings,
  type FillRule,
  type Frequency,
  type TimeSeriesProfile,
  type TimeSeriesSchema,
} from '../api/timeSeries';
import { SeriesChart } from './SeriesChart';
import { MAX_PICKED, SERIES_COLORS, SORT_KEYS, sortSeries, type SortKey } from './timeSeriesView';

const PAGE_SIZE = 20;

/** A strength in [0, 1] as a bar-free figure: "0.82", or "—" when the series is too short to tell. */
function strength(value: number | null): string {
  return value === null ? '—' : formatNumber(value, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

function frequencyLabel(t: ReturnType<typeof useTranslation<'datasets'>>['t'], alias: string): string {
  return t('timeSeries.frequencyOption', { alias, name: t(`timeSeries.frequencies.${alias as (typeof FREQUENCIES)[number]}`, { defaultValue: alias }) });
}

/**
 * The grid and the fill rule in force, changeable by an editor; later versions read the series with
 * them. The choices stay as picked while the saved dataset is read back (no reset under the user).
 */
function SeriesSettings({ dataset, schema, canEdit }: { dataset: Dataset; schema: TimeSeriesSchema; canEdit: boolean }) {
  const { t } = useTranslation(['datasets', 'common']);
  const queryClient = useQueryClient();
  const [frequency, setFrequency] = useState(schema.frequency as Frequency);
  const [fillRule, setFillRule] = useState<FillRule>(schema.fill_rule);
  const save = useMutation({
    mutationFn: () => updateTimeSeriesSettings(dataset.id, { frequency, fill_rule: fillRule }),
    meta: { handlesOwnErrors: true },
    onSuccess: () => {
      notifySuccess(t('timeSeries.settingsSaved'));
      return queryClient.invalidateQueries({ queryKey: datasetKeys.detail(dataset.id) });
    },
  });
  const changed = frequency !== schema.frequency || fillRule !== schema.fill_rule;
  return (
    <Paper withBorder p="md" data-testid="series-settings">
      <Stack gap="xs">
        <Title order={5}>{t('timeSeries.settingsTitle')}</Title>
        {save.isError && (
          <Alert color="red" variant="light" data-testid="series-settings-error">
            {errorMessage(save.error)}
          </Alert>
        )}
        <Group align="flex-end">
          <Select
            label={t('timeSeries.frequency')}
            description={schema.frequency_inferred ? t('timeSeries.inferredWas', { value: frequencyLabel(t, schema.frequency_inferred) }) : t('timeSeries.notInferred')}
            data={FREQUENCIES.map((alias) => ({ value: alias, label: frequencyLabel(t, alias) }))}
            value={frequency}
            onChange={(value) => value && setFrequency(value as Frequency)}
            allowDeselect={false}
            w={240}
            disabled={!canEdit}
            data-testid="series-frequency"
          />
          <Select
            label={t('timeSeries.fillRule')}
            description={t(`timeSeries.fillRuleMeaning.${fillRule}`)}
            data={FILL_RULES.map((rule) => ({ value: rule, label: t(`timeSeries.fillRules.${rule}`) }))}
            value={fillRule}
            onChange={(value) => value && setFillRule(value as FillRule)}
            allowDeselect={false}
            w={320}
            disabled={!canEdit}
            data-testid="series-fill-rule"
          />
          <WithReason reason={!canEdit ? t('common:permissions.viewerReadOnly') : null}>
            <Button onClick={() => save.mutate()} disabled={!canEdit || !changed} loading={save.isPending} data-testid="series-settings-save">
              {t('timeSeries.settingsSave')}
            </Button>
          </WithReason>
        </Group>
        <Text size="xs" c="dimmed">
          {t('timeSeries.settingsHint')}
        </Text>
      </Stack>
    </Paper>
  );
}

function SortHeader({ label, sortKey, sort, onSort }: { label: string; sortKey: SortKey; sort: { key: SortKey; descending: boolean }; onSort: (key: SortKey) => void }) {
  const active = sort.key === sortKey;
  return (
    <Table.Th>
      <UnstyledButton onClick={() => onSort(sortKey)} fw={600} fz="sm" data-testid={`series-sort-${sortKey}`} aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
        {label}
        {active ? (sort.descending ? ' ↓' : ' ↑') : ''}
      </UnstyledButton>
    </Table.Th>
  );
}

/** The series table: searchable by id, sortable by each summary, paginated; a checkbox picks a series for the chart. */
function SeriesTable({
  datasetId,
  profile,
  picked,
  onToggle,
}: {
  datasetId: number;
  profile: TimeSeriesProfile;
  picked: string[];
  onToggle: (id: string) => void;
}) {
  const { t } = useTranslation('datasets');
  // Past the profiled (longest) series, any other is plotted by its id once the server knows it.
  const lookup = useMutation({
    mutationFn: (id: string) => getSeriesPoints(datasetId, [id], {}, 2),
    meta: { handlesOwnErrors: true },
    onSuccess: (_, id) => onToggle(id),
  });
  const partial = profile.series_count > profile.series.length;
  const [searchInput, setSearchInput] = useState('');
  const [search] = useDebouncedValue(searchInput.trim().toLowerCase(), 200);
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'length', descending: true });
  const [page, setPage] = useState(1);
  const rows = useMemo(() => {
    const found = search ? profile.series.filter((entry) => entry.id.toLowerCase().includes(search)) : profile.series;
    return sortSeries(found, sort.key, sort.descending);
  }, [profile.series, search, sort]);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const current = Math.min(page, pages);
  const onSort = (key: SortKey) => {
    setSort((previous) => (previous.key === key ? { key, descending: !previous.descending } : { key, descending: key !== 'id' }));
    setPage(1);
  };
  const full = picked.length >= MAX_PICKED;
  const labels: Record<SortKey, string> = {
    id: t('timeSeries.columns.series'),
    length: t('timeSeries.columns.length'),
    missing_share: t('timeSeries.columns.missing'),
    seasonal_strength: t('timeSeries.columns.seasonality'),
    trend_strength: t('timeSeries.columns.trend'),
    zero_share: t('timeSeries.columns.zeros'),
  };
  return (
    <Paper withBorder p="md">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={5}>{t('timeSeries.tableTitle')}</Title>
          <TextInput
            placeholder={t('timeSeries.search')}
            value={searchInput}
            onChange={(event) => {
              setSearchInput(event.currentTarget.value);
              setPage(1);
            }}
            w={260}
            data-testid="series-search"
          />
        </Group>
        {profile.series_count > profile.series.length && (
          <Text size="xs" c="dimmed" data-testid="series-profiled-share">
            {t('timeSeries.profiledShare', { shown: formatNumber(profile.series.length), count: profile.series_count, total: formatNumber(profile.series_count) })}
          </Text>
        )}
        <Table.ScrollContainer minWidth={720}>
          <Table fz="sm" verticalSpacing={4} striped data-testid="series-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={40} />
                {SORT_KEYS.map((key) => (
                  <SortHeader key={key} label={labels[key]} sortKey={key} sort={sort} onSort={onSort} />
                ))}
                <Table.Th>{t('timeSeries.columns.span')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE).map((entry) => {
                const checked = picked.includes(entry.id);
                return (
                  <Table.Tr key={entry.id} data-testid="series-row" data-series={entry.id}>
                    <Table.Td>
                      <Checkbox
                        checked={checked}
                        disabled={!checked && full}
                        onChange={() => onToggle(entry.id)}
                        aria-label={t('timeSeries.pick', { id: entry.id })}
                        data-testid={`series-pick-${entry.id}`}
                      />
                    </Table.Td>
                    <Table.Td style={{ wordBreak: 'break-all' }}>{entry.id}</Table.Td>
                    <Table.Td>{formatNumber(entry.length)}</Table.Td>
                    <Table.Td c={entry.missing_share > 0.2 ? 'orange' : undefined}>{formatPercent(entry.missing_share)}</Table.Td>
                    <Table.Td>{strength(entry.seasonal_strength)}</Table.Td>
                    <Table.Td>{strength(entry.trend_strength)}</Table.Td>
                    <Table.Td>
                      {formatPercent(entry.zero_share)}
                      {entry.zero_share >= 0.3 && (
                        <Badge size="xs" variant="light" color="grape" ml={4}>
                          {t('timeSeries.intermittent')}
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" c="dimmed">
                        {entry.start} – {entry.end}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {rows.length === 0 && !partial && (
          <Text c="dimmed" size="sm" ta="center" data-testid="series-none-found">
            {t('timeSeries.noneFound')}
          </Text>
        )}
        {partial && search && !profile.series.some((entry) => entry.id === searchInput.trim()) && (
          <Group gap="xs" justify="center" data-testid="series-lookup">
            <Text c="dimmed" size="sm">
              {rows.length === 0 ? t('timeSeries.notProfiled') : t('timeSeries.orById')}
            </Text>
            <WithReason reason={full ? t('timeSeries.chartFull', { max: MAX_PICKED }) : null}>
              <Button
                size="compact-sm"
                variant="light"
                disabled={full || picked.includes(searchInput.trim())}
                loading={lookup.isPending}
                onClick={() => lookup.mutate(searchInput.trim())}
                data-testid="series-lookup-plot"
              >
                {t('timeSeries.plotById', { id: searchInput.trim() })}
              </Button>
            </WithReason>
            {lookup.isError && (
              <Text c="red" size="sm" data-testid="series-lookup-error">
                {errorMessage(lookup.error)}
              </Text>
            )}
          </Group>
        )}
        {pages > 1 && <Pagination total={pages} value={current} onChange={setPage} size="sm" data-testid="series-pagination" />}
      </Stack>
    </Paper>
  );
}

/**
 * A forecasting dataset's profile: the grid (frequency, changeable with the fill rule), how many
 * series and observations, a chart of a few picked series with zoom, and every profiled series'
 * length, missing share, seasonality, trend and intermittency (share of zeros).
 */
export function SeriesProfilePanel({ dataset, canEdit = false }: { dataset: Dataset; canEdit?: boolean }) {
  const { t } = useTranslation('datasets');
  const query = useQuery({ queryKey: datasetKeys.profile(dataset.id), queryFn: () => getProfile(dataset.id) });
  const [chosen, setChosen] = useState<string[] | null>(null);
  // Series plotted by id that the profile does not list (it holds the longest ones only).
  const [looked, setLooked] = useState<string[]>([]);
  if (query.isPending) return <Skeleton h={240} />;
  if (query.isError) return <Alert color="red">{errorMessage(query.error)}</Alert>;
  const profile = query.data as unknown;
  if (!isTimeSeriesProfile(profile)) {
    return (
      <Text c="dimmed" data-testid="series-profile-empty">
        {t('timeSeries.profileEmpty')}
      </Text>
    );
  }
  const known = new Set([...profile.series.map((entry) => entry.id), ...looked]);
  const picked = (chosen ?? profile.series.slice(0, 3).map((entry) => entry.id)).filter((id) => known.has(id));
  const toggle = (id: string) => {
    if (!known.has(id)) setLooked((ids) => [...ids, id]);
    setChosen(picked.includes(id) ? picked.filter((other) => other !== id) : picked.length < MAX_PICKED ? [...picked, id] : picked);
  };
  const schema = isTimeSeriesSchema(dataset.schema) ? dataset.schema : null;
  return (
    <Stack data-testid="series-profile">
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }}>
        <Stat
          label={t('timeSeries.stats.frequency')}
          value={frequencyLabel(t, profile.frequency)}
          hint={profile.frequency_inferred && profile.frequency_inferred !== profile.frequency ? t('timeSeries.inferredWas', { value: profile.frequency_inferred }) : undefined}
          testId="series-stat-frequency"
        />
        <Stat label={t('timeSeries.stats.seasonLength')} value={formatNumber(profile.season_length)} testId="series-stat-season" />
        <Stat label={t('timeSeries.stats.series')} value={formatNumber(profile.series_count)} testId="series-stat-count" />
        <Stat label={t('timeSeries.stats.observations')} value={formatNumber(profile.observations)} testId="series-stat-observations" />
        <Stat label={t('timeSeries.stats.missing')} value={formatPercent(profile.missing_share)} testId="series-stat-missing" />
        <Stat
          label={t('timeSeries.stats.length')}
          value={profile.shortest === profile.longest ? formatNumber(profile.longest) : `${formatNumber(profile.shortest)} – ${formatNumber(profile.longest)}`}
          testId="series-stat-length"
        />
      </SimpleGrid>
      {schema && <SeriesSettings dataset={dataset} schema={schema} canEdit={canEdit} />}
      <Group gap="xs" data-testid="series-picked">
        <Text size="sm" c="dimmed">
          {t('timeSeries.picked', { picked: picked.length, max: MAX_PICKED })}
        </Text>
        {picked.map((id, index) => (
          <Badge
            key={id}
            variant="light"
            color="gray"
            leftSection={<span style={{ display: 'inline-block', width: 8, height: 8, borderRadius: 4, background: SERIES_COLORS[index % SERIES_COLORS.length] }} />}
            rightSection={<CloseButton size="xs" onClick={() => toggle(id)} aria-label={t('timeSeries.unpick', { id })} />}
          >
            {id}
          </Badge>
        ))}
      </Group>
      <SeriesChart datasetId={dataset.id} ids={picked} />
      <SeriesTable datasetId={dataset.id} profile={profile} picked={picked} onToggle={toggle} />
    </Stack>
  );
}
