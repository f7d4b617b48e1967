import {
  Alert,
  Badge,
  Box,
  Button,
  ColorSwatch,
  Grid,
  Group,
  Image,
  Kbd,
  Pagination,
  Paper,
  Progress,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useCallback, useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { WithReason } from '@/components/WithReason';
import { AcceptSuggestionButton, SuggestionChip, suggestionOf, useAcceptSuggestions } from '@/features/labeling/suggestions';
import { errorMessage, notifyError } from '@/lib/notifications';
import { formatNumber, formatPercent } from '@/lib/numbers';
import type { Label } from '../api/labels';
import { MAX_PICKED_SAMPLES, SAMPLES_PAGE_SIZE, type Sample, type SampleFilters } from '../api/samples';
import { useDataset } from '../hooks/useDatasets';
import { useLabels } from '../hooks/useLabels';
import { useLabeling, useSamplePage } from '../hooks/useSamples';
import { ActivityLog } from './ActivityLog';
import { DetectionGrid } from './detection/DetectionGrid';
import { keyCap, labelColor, labelKeys } from './labelKeys';
import { LabelsManager } from './LabelsManager';
import { PickedSamplesAlert } from './PickedSamplesAlert';

const FALLBACK_COLUMNS = 6;

/** The number of columns the grid shows now (CSS grid), for up/down arrows. */
function columnsOf(grid: HTMLElement | null): number {
  if (!grid) return FALLBACK_COLUMNS;
  const template = getComputedStyle(grid).gridTemplateColumns;
  const count = template ? template.split(' ').filter(Boolean).length : 0;
  return count > 0 ? count : FALLBACK_COLUMNS;
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.closest('[role="dialog"]')) return true;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

function filterValue(label: SampleFilters['label']): string {
  return label === null ? 'all' : String(label);
}

function parseFilter(value: string | null): SampleFilters['label'] {
  if (!value || value === 'all') return null;
  if (value === 'unlabeled' || value === 'labeled') return value;
  return Number(value);
}

function LabelBadge({ sample, labels }: { sample: Sample; labels: Label[] }) {
  const { t } = useTranslation(['datasets', 'common']);
  if (sample.label === null) {
    return (
      <Badge size="xs" color="gray" variant="outline">
        {t('labeling.unlabeledBadge')}
      </Badge>
    );
  }
  const index = labels.findIndex((label) => label.id === sample.label);
  const color = index >= 0 ? labelColor(labels[index], index) : undefined;
  return (
    <Badge size="xs" variant="filled" color={color} autoContrast style={{ maxWidth: '100%' }}>
      {sample.label_name ?? `#${sample.label}`}
    </Badge>
  );
}

/** A sample's pending model suggestion, shown only while no person has labeled it. */
function pendingSuggestion(sample: Sample) {
  return sample.label === null ? suggestionOf(sample) : null;
}

/** The key that accepts the current sample's suggestion: `a`, unless a label has it. */
const ACCEPT_KEY = 'a';

/** Text and table rows have no image: their tile shows the text, or the row's first values. */
function isImage(sample: Sample): boolean {
  return sample.format !== 'TEXT' && sample.format !== 'ROW';
}

function sampleText(sample: Sample): string {
  if (sample.format === 'TEXT') return sample.text;
  const values = (sample.values ?? {}) as Record<string, unknown>;
  return Object.entries(values)
    .map(([name, value]) => `${name}: ${value === null ? '—' : String(value)}`)
    .join(' · ');
}

/**
 * The labeler: a thumbnail grid with server-side filters and pages, a large preview, labels by
 * click or by each label's key (1-9, 0, then letters, in the labels' order, or the key the user
 * chose), Backspace/Delete to unlabel, arrows, Ctrl/Cmd+Z, "/" to search, multi-select with bulk
 * assignment and the progress.
 * With `sampleIds` it shows just those samples (e.g. from an evaluation report), the first
 * MAX_PICKED_SAMPLES of them, in pages like the rest.
 */
export function LabelingPanel(props: LabelingPanelProps) {
  const { data: dataset } = useDataset(props.datasetId);
  // An object-detection dataset is labeled with boxes: its grid opens the box labeler.
  return dataset?.task_type === 'object_detection' ? <DetectionGrid {...props} /> : <ClassificationLabelingPanel {...props} />;
}

type LabelingPanelProps = {
  datasetId: number;
  canEdit: boolean;
  sampleIds?: number[] | null;
  onClearSampleIds?: () => void;
};

function ClassificationLabelingPanel({ datasetId, canEdit, sampleIds = null, onClearSampleIds }: LabelingPanelProps) {
  const { t } = useTranslation(['datasets', 'common', 'labeling']);
  const { data: labels = [] } = useLabels(datasetId);
  const keys = useMemo(() => labelKeys(labels), [labels]);
  const labelByKey = useMemo(() => new Map([...keys].flatMap(([id, key]) => (key ? [[key, id] as const] : []))), [keys]);
  const searchRef = useRef<HTMLInputElement>(null);
  const [labelFilter, setLabelFilter] = useState<SampleFilters['label']>(null);
  const [searchInput, setSearchInput] = useState('');
  const { data: dataset } = useDataset(datasetId);
  const textual = dataset?.task_type === 'text_classification';
  const [search] = useDebouncedValue(searchInput, 300);
  const [page, setPage] = useState(1);
  const byIds = sampleIds !== null;
  const picked = useMemo(() => sampleIds?.slice(0, MAX_PICKED_SAMPLES) ?? [], [sampleIds]);
  // Other picked samples (or none: all samples) start at the first page.
  const pickedKey = byIds ? picked.join(',') : null;
  const [pageFor, setPageFor] = useState(pickedKey);
  if (pageFor !== pickedKey) {
    setPageFor(pickedKey);
    setPage(1);
  }
  const filters: SampleFilters = byIds ? { label: null, search: '', page, ids: picked } : { label: labelFilter, search, page };
  const pageQuery = useSamplePage(datasetId, filters);
  const samples = useMemo(() => pageQuery.data?.results ?? [], [pageQuery.data]);
  const counts = pageQuery.data?.counts;
  const pages = pageQuery.data ? Math.max(1, Math.ceil(pageQuery.data.count / SAMPLES_PAGE_SIZE)) : 1;
  // Picked ids the dataset no longer has are not found: the filtered count says how many are.
  const missing = byIds && pageQuery.data && !pageQuery.isPlaceholderData ? picked.length - pageQuery.data.count : 0;

  const [current, setCurrent] = useState(0);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [anchor, setAnchor] = useState(0);
  const [bulkTarget, setBulkTarget] = useState<string | null>(null);
  const [pendingMove, setPendingMove] = useState<'first' | 'last' | null>(null);
  const gridRef = useRef<HTMLDivElement>(null);
  const { assign, undo, canUndo, pending, conflict, clearConflict } = useLabeling(datasetId, labels);
  const acceptSuggestion = useAcceptSuggestions(datasetId);
  const acceptKey = labelByKey.has(ACCEPT_KEY) ? null : ACCEPT_KEY;

  // A new page starts at its first sample (or its last, when arrowing back into it).
  // Adjusted while rendering (like pageFor above), not in an effect that would first paint the old position.
  const pageKey = JSON.stringify(filters);
  const [positionFor, setPositionFor] = useState(pageKey);
  if (positionFor !== pageKey) {
    setPositionFor(pageKey);
    setSelected(new Set());
    setCurrent(pendingMove === 'last' ? Number.MAX_SAFE_INTEGER : 0);
    setPendingMove(null);
  }

  const currentIndex = samples.length === 0 ? -1 : Math.min(current, samples.length - 1);
  const currentSample = currentIndex >= 0 ? samples[currentIndex] : undefined;

  const changeFilter = (next: SampleFilters['label']) => {
    setLabelFilter(next);
    setPage(1);
  };

  const move = useCallback(
    (delta: number) => {
      if (samples.length === 0) return;
      const target = currentIndex + delta;
      if (target >= samples.length) {
        if (page < pages) {
          setPendingMove('first');
          setPage(page + 1);
        } else setCurrent(samples.length - 1);
        return;
      }
      if (target < 0) {
        if (page > 1) {
          setPendingMove('last');
          setPage(page - 1);
        } else setCurrent(0);
        return;
      }
      setCurrent(target);
      setAnchor(target);
    },
    [samples.length, currentIndex, page, pages],
  );

  /** Labels the selection, or else the current sample (and moves on to the next one). */
  const assignLabel = useCallback(
    (labelId: number | null) => {
      if (!canEdit) return;
      if (selected.size > 0) {
        void assign([...selected], labelId);
        return;
      }
      if (!currentSample) return;
      void assign([currentSample.id], labelId);
      if (currentIndex < samples.length - 1) {
        setCurrent(currentIndex + 1);
        setAnchor(currentIndex + 1);
      }
    },
    [canEdit, selected, currentSample, currentIndex, samples.length, assign],
  );

  /** Accepts the current sample's suggestion (the server writes the label; never over a person's) and moves on. */
  const acceptCurrent = useCallback(() => {
    const suggestion = currentSample ? pendingSuggestion(currentSample) : null;
    if (!canEdit || !suggestion) return;
    acceptSuggestion.mutate({ ids: [suggestion.id] }, { onError: (error) => notifyError(error, t('labeling:suggestion.acceptFailed')) });
    if (currentIndex < samples.length - 1) {
      setCurrent(currentIndex + 1);
      setAnchor(currentIndex + 1);
    }
  }, [canEdit, currentSample, currentIndex, samples.length, acceptSuggestion, t]);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (isTyping(event.target)) return;
      if ((event.ctrlKey || event.metaKey) && !event.shiftKey && event.key.toLowerCase() === 'z') {
        event.preventDefault();
        if (canEdit) void undo();
        return;
      }
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const columns = columnsOf(gridRef.current);
      const labelId = event.key.length === 1 ? labelByKey.get(event.key.toLowerCase()) : undefined;
      if (labelId !== undefined) {
        event.preventDefault();
        assignLabel(labelId);
      } else if (acceptKey !== null && event.key === acceptKey && selected.size === 0) {
        event.preventDefault();
        acceptCurrent();
      } else if (event.key === 'Backspace' || event.key === 'Delete') {
        event.preventDefault();
        assignLabel(null);
      } else if (event.key === '/') {
        event.preventDefault();
        searchRef.current?.focus();
      } else if (event.key === 'ArrowRight') {
        event.preventDefault();
        move(1);
      } else if (event.key === 'ArrowLeft') {
        event.preventDefault();
        move(-1);
      } else if (event.key === 'ArrowDown') {
        event.preventDefault();
        move(columns);
      } else if (event.key === 'ArrowUp') {
        event.preventDefault();
        move(-columns);
      } else if (event.key === 'Escape') {
        setSelected(new Set());
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [labelByKey, assignLabel, move, undo, canEdit, acceptKey, acceptCurrent, selected.size]);

  const clickTile = (event: MouseEvent, index: number) => {
    const sample = samples[index];
    if (event.shiftKey) {
      const [from, to] = [Math.min(anchor, index), Math.max(anchor, index)];
      setSelected(new Set(samples.slice(from, to + 1).map((item) => item.id)));
    } else if (event.ctrlKey || event.metaKey) {
      setSelected((previous) => {
        const next = new Set(previous);
        if (next.size === 0 && currentSample && currentSample.id !== sample.id) next.add(currentSample.id);
        if (next.has(sample.id)) next.delete(sample.id);
        else next.add(sample.id);
        return next;
      });
      setAnchor(index);
    } else {
      setSelected(new Set());
      setAnchor(index);
    }
    setCurrent(index);
  };

  const labeledPercent = counts && counts.total ? Math.round((1000 * counts.labeled) / counts.total) / 10 : 0;
  const withCount = (name: string, count: number | undefined) => (count === undefined ? name : t('labeling.withCount', { name, count: formatNumber(count) }));
  const filterOptions = [
    { value: 'all', label: t('labeling.filter.all') },
    { value: 'unlabeled', label: withCount(t('labeling.filter.unlabeled'), counts?.unlabeled) },
    { value: 'labeled', label: withCount(t('labeling.filter.labeled'), counts?.labeled) },
    ...labels.map((label) => ({
      value: String(label.id),
      label: withCount(label.name, counts?.per_label.find((row) => row.id === label.id)?.count ?? label.sample_count),
    })),
  ];
  const readOnly = canEdit ? null : t('common:permissions.viewerReadOnly');
  const loading = pageQuery.isPending;

  return (
    <Grid gap="md" data-testid="labeling-panel">
      <Grid.Col span={{ base: 12, md: 2.5 }}>
        <Stack gap="sm">
          <Paper withBorder p="sm">
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              {t('labeling.progress')}
            </Text>
            <Text fw={600} data-testid="labeling-progress" data-labeled={counts?.labeled} data-total={counts?.total}>
              {counts ? t('labeling.progressCount', { labeled: formatNumber(counts.labeled), total: formatNumber(counts.total) }) : '…'}
            </Text>
            <Progress value={labeledPercent} size="sm" mt={4} aria-label={t('labeling.progressAria', { percent: formatPercent(labeledPercent / 100) })} />
          </Paper>
          <LabelsManager datasetId={datasetId} labels={labels} canEdit={canEdit} />
          <Paper withBorder p="sm">
            <Text size="xs" c="dimmed" data-testid="labeling-help">
              <Trans t={t} i18nKey="labeling.help" components={{ k: <Kbd /> }} />
            </Text>
          </Paper>
        </Stack>
      </Grid.Col>

      <Grid.Col span={{ base: 12, md: 6 }}>
        <Stack gap="sm">
          {byIds ? (
            <PickedSamplesAlert onClear={onClearSampleIds} testId="labeling-sample-filter" clearTestId="labeling-show-all">
              {t('labeling.picked.showing', { count: picked.length })}
              {sampleIds && sampleIds.length > picked.length ? t('labeling.picked.firstOf', { shown: formatNumber(picked.length), total: formatNumber(sampleIds.length) }) : ''}
              {missing > 0 ? t('labeling.picked.missing', { count: missing }) : ''}
              {t('labeling.picked.end')}
            </PickedSamplesAlert>
          ) : (
            <Group gap="sm" align="flex-end">
              <Select
                label={t('labeling.filter.label')}
                data={filterOptions}
                value={filterValue(labelFilter)}
                onChange={(value) => changeFilter(parseFilter(value))}
                allowDeselect={false}
                w={220}
                size="xs"
                data-testid="labeling-filter"
              />
              <TextInput
                ref={searchRef}
                label={textual ? t('labeling.search.text') : t('labeling.search.fileName')}
                placeholder={t('labeling.search.placeholder')}
                value={searchInput}
                onChange={(event) => {
                  setSearchInput(event.currentTarget.value);
                  setPage(1);
                }}
                size="xs"
                w={180}
                data-testid="labeling-search"
              />
              <Text size="xs" c="dimmed" data-testid="labeling-count">
                {pageQuery.data ? t('labeling.matching', { count: pageQuery.data.count, formatted: formatNumber(pageQuery.data.count) }) : ''}
              </Text>
            </Group>
          )}

          {conflict && (
            <Alert color="orange" title={t('labeling.conflict.title')} withCloseButton onClose={clearConflict} data-testid="label-conflict">
              <Text size="sm">{conflict.message}</Text>
              {conflict.current.map((item) => (
                <Text size="sm" key={item.id} data-testid={`label-conflict-current-${item.id}`}>
                  {item.label_name
                    ? t('labeling.conflict.nowLabeled', { id: item.id, name: item.label_name, version: item.label_version })
                    : t('labeling.conflict.nowUnlabeled', { id: item.id, version: item.label_version })}
                </Text>
              ))}
              <Text size="xs" c="dimmed">
                {t('labeling.conflict.hint')}
              </Text>
            </Alert>
          )}

          {selected.size > 0 && (
            <Paper withBorder p="xs" data-testid="bulk-bar">
              <Group gap="sm">
                <Text size="sm" fw={600} data-testid="bulk-count">
                  {t('labeling.bulk.selected', { count: selected.size })}
                </Text>
                <Select
                  size="xs"
                  placeholder={t('labeling.bulk.placeholder')}
                  data={[{ value: 'none', label: t('labeling.bulk.unlabeled') }, ...labels.map((label) => ({ value: String(label.id), label: label.name }))]}
                  value={bulkTarget}
                  onChange={setBulkTarget}
                  w={180}
                  data-testid="bulk-label-select"
                />
                <WithReason reason={readOnly || (bulkTarget === null && t('labeling.bulk.pickFirst'))}>
                  <Button
                    size="xs"
                    disabled={!canEdit || bulkTarget === null}
                    onClick={() => bulkTarget !== null && assignLabel(bulkTarget === 'none' ? null : Number(bulkTarget))}
                    data-testid="bulk-label-apply"
                  >
                    {t('labeling.bulk.apply', { count: selected.size })}
                  </Button>
                </WithReason>
                <Button size="xs" variant="subtle" onClick={() => setSelected(new Set())} data-testid="bulk-clear">
                  {t('labeling.bulk.clear')}
                </Button>
              </Group>
            </Paper>
          )}

          {loading && <Skeleton h={320} />}
          {pageQuery.isError && <Alert color="red">{errorMessage(pageQuery.error)}</Alert>}
          {!loading && samples.length === 0 && (
            <Paper withBorder p="xl" ta="center" data-testid="labeling-empty">
              <Text c="dimmed">{t('labeling.empty')}</Text>
            </Paper>
          )}
          <SimpleGrid cols={{ base: 3, sm: 4, lg: 6 }} spacing={6} ref={gridRef} data-testid="sample-grid">
            {samples.map((sample, index) => {
              const isCurrent = index === currentIndex;
              const isSelected = selected.has(sample.id);
              const suggestion = pendingSuggestion(sample);
              return (
                <Paper
                  key={sample.id}
                  withBorder
                  p={4}
                  role="button"
                  aria-pressed={isSelected}
                  aria-label={sample.original_name}
                  onClick={(event) => clickTile(event, index)}
                  data-testid={`sample-tile-${sample.id}`}
                  data-current={isCurrent || undefined}
                  data-selected={isSelected || undefined}
                  data-label={sample.label ?? ''}
                  data-label-version={sample.label_version}
                  data-suggestion={suggestion?.id}
                  style={{
                    cursor: 'pointer',
                    userSelect: 'none',
                    // A model's suggestion is drawn apart from human labels: a dashed outline.
                    border: suggestion ? '1px dashed var(--mantine-color-violet-5)' : undefined,
                    outline: isCurrent ? '2px solid var(--mantine-color-blue-6)' : undefined,
                    background: isSelected ? 'var(--mantine-color-blue-0)' : undefined,
                  }}
                >
                  <Box h={84} style={{ display: 'flex', alignItems: 'center', justifyContent: 'center', overflow: 'hidden' }}>
                    {isImage(sample) ? (
                      <img src={sample.thumbnail_url} alt={sample.original_name} loading="lazy" style={{ width: '100%', height: 84, objectFit: 'contain', imageRendering: sample.width < 84 ? 'pixelated' : undefined }} />
                    ) : (
                      <Text size="xs" lineClamp={5} w="100%" style={{ alignSelf: 'flex-start' }} data-testid={`sample-text-${sample.id}`}>
                        {sampleText(sample)}
                      </Text>
                    )}
                  </Box>
                  {suggestion ? <SuggestionChip suggestion={suggestion} testId={`sample-suggestion-${sample.id}`} compact /> : <LabelBadge sample={sample} labels={labels} />}
                </Paper>
              );
            })}
          </SimpleGrid>
          {pages > 1 && (
            <Group justify="center">
              <Pagination total={pages} value={page} onChange={setPage} size="sm" data-testid="labeling-pagination" />
            </Group>
          )}
        </Stack>
      </Grid.Col>

      <Grid.Col span={{ base: 12, md: 3.5 }}>
        <Paper withBorder p="sm" data-testid="sample-preview" pos="sticky" top={70}>
          {currentSample ? (
            <Stack gap="xs">
              {isImage(currentSample) ? (
                <Image
                  src={currentSample.image_url}
                  alt={currentSample.original_name}
                  fit="contain"
                  h={280}
                  style={{ imageRendering: currentSample.width < 128 ? 'pixelated' : undefined }}
                  data-testid="sample-preview-image"
                />
              ) : (
                <Box mah={280} style={{ overflowY: 'auto', whiteSpace: 'pre-wrap' }} data-testid="sample-preview-text">
                  <Text size="sm">{sampleText(currentSample)}</Text>
                </Box>
              )}
              <Text size="sm" fw={600} truncate title={currentSample.original_name} data-testid="sample-preview-name">
                {currentSample.original_name}
              </Text>
              {pendingSuggestion(currentSample) && (
                <Group gap="xs" data-testid="preview-suggestion">
                  <SuggestionChip suggestion={pendingSuggestion(currentSample)!} testId="preview-suggestion-chip" />
                  <AcceptSuggestionButton
                    onAccept={acceptCurrent}
                    disabledReason={readOnly}
                    loading={acceptSuggestion.isPending}
                    keyName={acceptKey ? keyCap(acceptKey) : null}
                  />
                </Group>
              )}
              <Group gap="xs">
                <LabelBadge sample={currentSample} labels={labels} />
                <Text size="xs" c="dimmed">
                  {isImage(currentSample) ? `${currentSample.width}×${currentSample.height} ${currentSample.format}` : currentSample.format.toLowerCase()}
                </Text>
              </Group>
              <Group gap={4}>
                {labels.map((label, index) => {
                  const key = keys.get(label.id);
                  return (
                    <WithReason key={label.id} reason={readOnly}>
                      <Button
                        size="compact-xs"
                        variant={currentSample.label === label.id ? 'filled' : 'default'}
                        color={labelColor(label, index)}
                        autoContrast
                        leftSection={<ColorSwatch color={labelColor(label, index)} size={8} />}
                        disabled={!canEdit}
                        onClick={() => assignLabel(label.id)}
                        title={key ? t('labeling.keyTitle', { key: keyCap(key), name: label.name }) : undefined}
                        data-testid={`assign-label-${label.id}`}
                        data-key={key ?? ''}
                      >
                        {key ? `${keyCap(key)} · ` : ''}
                        {label.name}
                      </Button>
                    </WithReason>
                  );
                })}
              </Group>
              <Group gap="xs">
                <WithReason reason={readOnly}>
                  <Button size="compact-xs" variant="subtle" color="gray" disabled={!canEdit} onClick={() => assignLabel(null)} data-testid="assign-unlabeled">
                    {t('labeling.unlabel')}
                  </Button>
                </WithReason>
                <WithReason reason={readOnly || (!canUndo && t('labeling.nothingToUndo'))}>
                  <Button size="compact-xs" variant="subtle" disabled={!canEdit || !canUndo} onClick={() => void undo()} data-testid="label-undo">
                    {t('labeling.undo')}
                  </Button>
                </WithReason>
                {pending > 0 && (
                  <Text size="xs" c="dimmed" data-testid="label-saving">
                    {t('labeling.saving')}
                  </Text>
                )}
              </Group>
              <ActivityLog datasetId={datasetId} sampleId={currentSample.id} version={currentSample.label_version} canEdit={canEdit && pending === 0} readOnlyReason={canEdit ? t('labeling.saving') : null} />
            </Stack>
          ) : (
            <Text c="dimmed" size="sm">
              {t('labeling.pickSample')}
            </Text>
          )}
        </Paper>
      </Grid.Col>
    </Grid>
  );
}
