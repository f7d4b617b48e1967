import { Anchor, Button, Checkbox, Group, Modal, NumberInput, Pagination, Paper, Progress, RangeSlider, Select, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { WithReason } from '@/components/WithReason';
import type { Dataset, Label } from '@/features/datasets';
import { errorMessage, notifyError, notifySuccess } from '@/lib/notifications';
import { formatNumber } from '@/lib/numbers';
import { SUGGESTIONS_PAGE_SIZE, type AcceptResult, type SmartRound, type Suggestion, type SuggestionOrdering, type SuggestionSelection } from '../api/smart';
import { useAcceptSuggestions, useRejectSuggestions, useSuggestionPage } from '../hooks/useSmartLabeling';
import { labelerLink } from './labelerLink';
import { SuggestionChip } from './SuggestionChip';

const ORDERINGS = ['rank', '-confidence', 'confidence'] as const;
/** The bulk accept's default floor: "accept all above 0.95 for class 五". */
const DEFAULT_FLOOR = 0.95;

function ConfidenceBar({ value }: { value: number }) {
  const { t } = useTranslation('labeling');
  const color = value >= 0.9 ? 'teal' : value >= 0.6 ? 'yellow' : 'red';
  return (
    <Group gap={6} wrap="nowrap" miw={120}>
      <Progress value={value * 100} color={color} size="sm" flex={1} aria-label={t('suggestion.confidenceAria', { value: value.toFixed(2) })} />
      <Text size="xs" w={34} ta="right">
        {value.toFixed(2)}
      </Text>
    </Group>
  );
}

/**
 * The latest round's pending suggestions: filtered by class and a confidence range, accepted or
 * rejected one at a time, by selection, or in bulk ("accept all ≥ 0.95 for class 五", its count
 * shown before anything is written), or corrected in the labeler. With `source` capture instead of
 * a round: the pending suggestions from production (a deployment's answers to requests sent here),
 * decided one at a time or by selection.
 */
export function SuggestionsTable({
  dataset,
  labels,
  canEdit,
  round,
  source,
}: {
  dataset: Pick<Dataset, 'id' | 'task_type'>;
  labels: Label[];
  canEdit: boolean;
  round: SmartRound | null;
  source?: 'capture';
}) {
  const { t } = useTranslation(['labeling', 'common']);
  const detection = dataset.task_type === 'object_detection';
  const regression = dataset.task_type === 'tabular_regression';
  const [label, setLabel] = useState<number | null>(null);
  const [range, setRange] = useState<[number, number]>([0, 1]);
  const [[minConfidence, maxConfidence]] = useDebouncedValue(range, 250);
  const [ordering, setOrdering] = useState<SuggestionOrdering>('rank');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [confirming, setConfirming] = useState(false);
  // Object detection: accepted suggestions keep only the boxes scoring at least this much.
  const [minScore, setMinScore] = useState(0);
  const production = source === 'capture';
  const filters = { status: 'pending' as const, ...(round ? { round: round.id } : {}), ...(production ? { source } : {}), label: label ?? undefined, minConfidence, maxConfidence, ordering, page };
  const query = useSuggestionPage(dataset.id, filters);
  const accept = useAcceptSuggestions(dataset.id);
  const reject = useRejectSuggestions(dataset.id);
  const rows = query.data?.results ?? [];
  const count = query.data?.count ?? 0;
  const pages = Math.max(1, Math.ceil(count / SUGGESTIONS_PAGE_SIZE));
  const readOnly = canEdit ? null : t('common:permissions.viewerReadOnly');
  const labelName = label === null ? null : (labels.find((item) => item.id === label)?.name ?? `#${label}`);
  const busy = accept.isPending || reject.isPending;

  const filterChanged = () => {
    setPage(1);
    setSelected(new Set());
  };

  const reportAccepted = (result: AcceptResult) => {
    notifySuccess(t('suggestion.accepted', { count: result.accepted, formatted: formatNumber(result.accepted) }) + (result.skipped.length ? ' ' + t('suggestion.skipped', { count: result.skipped.length }) : ''));
    setSelected(new Set());
  };
  const doAccept = (selection: SuggestionSelection) => accept.mutate(detection && minScore > 0 ? { ...selection, min_score: minScore } : selection, { onSuccess: reportAccepted, onError: (error) => notifyError(error, t('suggestion.acceptFailed')) });
  const doReject = (ids: number[]) =>
    reject.mutate(
      { ids },
      {
        onSuccess: (result) => {
          notifySuccess(t('suggestion.rejected', { count: result.rejected, formatted: formatNumber(result.rejected) }));
          setSelected(new Set());
        },
        onError: (error) => notifyError(error, t('suggestion.rejectFailed')),
      },
    );

  /** "Accept all ≥ floor for class X": every pending suggestion of the round matching the filter, not just this page. */
  const bulkSelection: SuggestionSelection | null =
    label === null || !round ? null : { label, min_confidence: minConfidence, ...(maxConfidence < 1 ? { max_confidence: maxConfidence } : {}), round: round.id };
  const bulkReason = readOnly || (label === null && t('smart.bulk.pickClass')) || (count === 0 && t('smart.bulk.none'));
  const allOnPage = rows.length > 0 && rows.every((row) => selected.has(row.id));

  return (
    <Paper withBorder p="md" data-testid={production ? 'production-suggestions' : 'suggestions'}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={5}>{production ? t('suggestion.productionTitle') : t('smart.suggestions.title')}</Title>
          <Text size="sm" c="dimmed" data-testid="suggestions-count" data-count={count}>
            {query.data ? (production ? t('suggestion.productionCount', { count, formatted: formatNumber(count) }) : t('smart.suggestions.count', { count, formatted: formatNumber(count) })) : '…'}
          </Text>
        </Group>
        <Group align="flex-end" gap="md">
          {!detection && !regression && (
            <Select
              label={t('smart.suggestions.class')}
              data={[{ value: 'all', label: t('smart.suggestions.allClasses') }, ...labels.map((item) => ({ value: String(item.id), label: item.name }))]}
              value={label === null ? 'all' : String(label)}
              onChange={(value) => {
                setLabel(!value || value === 'all' ? null : Number(value));
                if (value && value !== 'all' && range[0] === 0) setRange([DEFAULT_FLOOR, range[1]]);
                filterChanged();
              }}
              allowDeselect={false}
              size="xs"
              w={200}
              data-testid="suggestions-class"
            />
          )}
          <Stack gap={4} w={260}>
            <Text size="xs" fw={500}>
              {t('smart.suggestions.confidence', { min: range[0].toFixed(2), max: range[1].toFixed(2) })}
            </Text>
            <RangeSlider
              min={0}
              max={1}
              step={0.01}
              minRange={0.01}
              value={range}
              onChange={(value) => {
                setRange(value);
                filterChanged();
              }}
              label={(value) => value.toFixed(2)}
              size="sm"
              data-testid="suggestions-confidence"
            />
          </Stack>
          <Select
            label={t('smart.suggestions.ordering')}
            data={ORDERINGS.map((value) => ({ value, label: t(`smart.ordering.${value}`) }))}
            value={ordering}
            onChange={(value) => {
              if (value) setOrdering(value as SuggestionOrdering);
              filterChanged();
            }}
            allowDeselect={false}
            size="xs"
            w={230}
            data-testid="suggestions-ordering"
          />
          {detection && (
            <NumberInput
              label={t('labeling:suggestion.minScore')}
              value={minScore}
              onChange={(value) => setMinScore(typeof value === 'number' ? value : Number(value) || 0)}
              min={0}
              max={1}
              step={0.05}
              decimalScale={2}
              size="xs"
              w={160}
              data-testid="suggestions-min-score"
            />
          )}
          {production && rows.length > 0 && (
            <Button size="xs" component={Link} to={labelerLink(dataset, rows.map((row) => row.sample.id))} data-testid="production-label">
              {t('suggestion.productionLabel', { count: rows.length })}
            </Button>
          )}
          {!detection && !regression && !production && (
            <WithReason reason={bulkReason}>
              <Button size="xs" color="teal" disabled={!!bulkReason || busy} onClick={() => setConfirming(true)} data-testid="suggestions-bulk-accept">
                {labelName === null
                  ? t('smart.bulk.buttonNoClass')
                  : t('smart.bulk.button', { min: minConfidence.toFixed(2), name: labelName, count, formatted: formatNumber(count) })}
              </Button>
            </WithReason>
          )}
        </Group>

        {selected.size > 0 && (
          <Group gap="sm" data-testid="suggestions-selection">
            <Text size="sm" fw={600}>
              {t('smart.selection.selected', { count: selected.size })}
            </Text>
            <WithReason reason={readOnly}>
              <Button size="xs" color="teal" disabled={!canEdit || busy} onClick={() => doAccept({ ids: [...selected] })} data-testid="suggestions-accept-selected">
                {t('smart.selection.accept', { count: selected.size })}
              </Button>
            </WithReason>
            <WithReason reason={readOnly}>
              <Button size="xs" color="red" variant="light" disabled={!canEdit || busy} onClick={() => doReject([...selected])} data-testid="suggestions-reject-selected">
                {t('smart.selection.reject', { count: selected.size })}
              </Button>
            </WithReason>
            <Button size="xs" variant="subtle" onClick={() => setSelected(new Set())}>
              {t('smart.selection.clear')}
            </Button>
          </Group>
        )}

        {query.isPending && <Skeleton h={200} />}
        {query.isError && <Text c="red">{errorMessage(query.error)}</Text>}
        {query.data && rows.length === 0 && (
          <Text c="dimmed" size="sm" ta="center" p="md" data-testid="suggestions-empty">
            {t('smart.suggestions.empty')}
          </Text>
        )}
        {rows.length > 0 && (
          <Table fz="sm" verticalSpacing={4} data-testid="suggestions-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={32}>
                  <Checkbox
                    aria-label={t('smart.selection.page')}
                    checked={allOnPage}
                    onChange={() => setSelected(allOnPage ? new Set() : new Set(rows.map((row) => row.id)))}
                    size="xs"
                  />
                </Table.Th>
                <Table.Th>{t('smart.suggestions.sample')}</Table.Th>
                <Table.Th>{t('smart.suggestions.suggested')}</Table.Th>
                <Table.Th>{t('smart.suggestions.confidenceColumn')}</Table.Th>
                <Table.Th>{t('smart.suggestions.rank')}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row) => (
                <SuggestionRow
                  key={row.id}
                  row={row}
                  dataset={dataset}
                  selected={selected.has(row.id)}
                  onToggle={() =>
                    setSelected((previous) => {
                      const next = new Set(previous);
                      if (next.has(row.id)) next.delete(row.id);
                      else next.add(row.id);
                      return next;
                    })
                  }
                  disabled={!canEdit || busy}
                  readOnly={readOnly}
                  onAccept={() => doAccept({ ids: [row.id] })}
                  onReject={() => doReject([row.id])}
                />
              ))}
            </Table.Tbody>
          </Table>
        )}
        {pages > 1 && (
          <Group justify="center">
            <Pagination total={pages} value={page} onChange={setPage} size="sm" data-testid="suggestions-pagination" />
          </Group>
        )}
      </Stack>

      <Modal opened={confirming} onClose={() => setConfirming(false)} title={t('smart.bulk.confirmTitle')} data-testid="suggestions-bulk-confirm">
        <Stack>
          <Text size="sm" data-testid="suggestions-bulk-summary">
            {t('smart.bulk.confirmBody', { count, formatted: formatNumber(count), name: labelName ?? '', min: minConfidence.toFixed(2), max: maxConfidence.toFixed(2) })}
          </Text>
          <Text size="xs" c="dimmed">
            {t('smart.bulk.neverOverwrites')}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              {t('common:actions.cancel')}
            </Button>
            <Button
              color="teal"
              loading={accept.isPending}
              onClick={() => {
                if (bulkSelection) doAccept(bulkSelection);
                setConfirming(false);
              }}
              data-testid="suggestions-bulk-confirm-button"
            >
              {t('smart.bulk.confirm', { count, formatted: formatNumber(count) })}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}

function SuggestionRow({
  row,
  dataset,
  selected,
  onToggle,
  disabled,
  readOnly,
  onAccept,
  onReject,
}: {
  row: Suggestion;
  dataset: Pick<Dataset, 'id' | 'task_type'>;
  selected: boolean;
  onToggle: () => void;
  disabled: boolean;
  readOnly: string | null;
  onAccept: () => void;
  onReject: () => void;
}) {
  const { t } = useTranslation('labeling');
  const hasImage = dataset.task_type === 'image_classification' || dataset.task_type === 'object_detection';
  return (
    <Table.Tr data-testid={`suggestion-row-${row.id}`} data-sample={row.sample.id} data-label={row.label ?? ''} data-confidence={row.confidence}>
      <Table.Td>
        <Checkbox checked={selected} onChange={onToggle} aria-label={t('smart.selection.one', { name: row.sample.original_name })} size="xs" />
      </Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          {hasImage && row.sample.thumbnail_url && (
            <img src={row.sample.thumbnail_url} alt={row.sample.original_name} loading="lazy" style={{ width: 48, height: 48, objectFit: 'contain', imageRendering: row.sample.width < 48 ? 'pixelated' : undefined }} />
          )}
          <Text size="xs" lineClamp={2} maw={320} title={row.sample.text || row.sample.original_name}>
            {row.sample.text || row.sample.original_name}
          </Text>
        </Group>
      </Table.Td>
      <Table.Td>
        <SuggestionChip suggestion={row} />
      </Table.Td>
      <Table.Td>
        <ConfidenceBar value={row.confidence} />
      </Table.Td>
      <Table.Td>{row.rank ?? '—'}</Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap" justify="flex-end">
          <WithReason reason={readOnly}>
            <Button size="compact-xs" color="teal" variant="light" disabled={disabled} onClick={onAccept} data-testid={`suggestion-accept-${row.id}`}>
              {t('suggestion.accept')}
            </Button>
          </WithReason>
          <WithReason reason={readOnly}>
            <Button size="compact-xs" color="red" variant="subtle" disabled={disabled} onClick={onReject} data-testid={`suggestion-reject-${row.id}`}>
              {t('suggestion.reject')}
            </Button>
          </WithReason>
          <Anchor component={Link} to={labelerLink(dataset, [row.sample.id])} size="xs" data-testid={`suggestion-correct-${row.id}`}>
            {t('suggestion.correct')}
          </Anchor>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
