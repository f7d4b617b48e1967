import { ActionIcon, Alert, Anchor, Badge, Button, ColorSwatch, Grid, Group, Kbd, Paper, ScrollArea, Skeleton, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { WithReason } from '@/components/WithReason';
import { AcceptSuggestionButton, SuggestionChip, suggestionOf, useAcceptSuggestions } from '@/features/labeling/suggestions';
import { errorMessage } from '@/lib/notifications';
import { formatNumber } from '@/lib/numbers';
import { annotationConflict, type SampleAnnotations } from '../../api/annotations';
import { datasetKeys } from '../../api/keys';
import { listSamples, SAMPLES_PAGE_SIZE, type SampleFilters } from '../../api/samples';
import { useAnnotateQueue, useFetchAnnotations, useSample, useSampleAnnotations, useSaveAnnotations } from '../../hooks/useAnnotations';
import { useLabels } from '../../hooks/useLabels';
import { ActivityLog } from '../ActivityLog';
import { keyCap, labelColor, labelKeys } from '../labelKeys';
import { LabelsManager } from '../LabelsManager';
import { BoxCanvas, type GhostBox } from './BoxCanvas';
import {
  addBox,
  copyBoxes,
  deleteBox,
  documentFrom,
  historyReducer,
  initialHistory,
  isDirty,
  moveBox,
  relabelBox,
  toggleNoObjects,
  writeOf,
  type BoxDocument,
} from './boxDocument';
import { labelerCommand, labelerLabelKeys } from './labelerKeys';

const EMPTY: BoxDocument = { status: 'unlabeled', boxes: [] };
const STATUS_COLORS = { unlabeled: 'gray', annotated: 'teal', no_objects: 'blue' } as const;

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.closest('[role="dialog"]')) return true;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * The box labeler for one image of an object-detection dataset: the canvas, the labels with their
 * keys, the image's boxes, "no objects", copy the previous image's boxes, undo/redo, and previous/next
 * through the grid's filter (`filters`, its page). Changes are saved with the revision they were read
 * at (Ctrl+S, the Save button, or on moving to another image); a 409 shows who won and loads the
 * current boxes.
 */
export function BoxLabeler({
  datasetId,
  sampleId,
  canEdit,
  filters,
  gridLink,
  onNavigate,
}: {
  datasetId: number;
  sampleId: number;
  canEdit: boolean;
  filters: SampleFilters;
  /** Back to the grid. */
  gridLink: string;
  onNavigate: (sampleId: number, filters: SampleFilters) => void;
}) {
  const { t } = useTranslation(['datasets', 'common', 'labeling']);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { data: labels = [] } = useLabels(datasetId);
  const sample = useSample(datasetId, sampleId);
  const annotations = useSampleAnnotations(datasetId, sampleId);
  const queue = useAnnotateQueue(datasetId, filters);
  const fetchAnnotations = useFetchAnnotations(datasetId);
  const { save: saveAnnotations, store } = useSaveAnnotations(datasetId);
  const acceptSuggestion = useAcceptSuggestions(datasetId);

  const [history, dispatch] = useReducer(historyReducer, EMPTY, initialHistory);
  const [loadedFor, setLoadedFor] = useState<number | null>(null);
  const [visitedBefore, setVisitedBefore] = useState<number | null>(null);
  const [revision, setRevision] = useState(0);
  const [selected, setSelected] = useState<string | null>(null);
  const [currentLabel, setCurrentLabel] = useState<string | null>(null);
  const [conflict, setConflict] = useState<SampleAnnotations | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [fitRequest, setFitRequest] = useState(0);
  const savingRef = useRef(false);

  // A newly opened image starts from the server's boxes, with a fresh history (set while rendering, so
  // the previous image's boxes are never drawn on this one).
  const loaded = annotations.data;
  if (loaded && loaded.sample === sampleId && loadedFor !== sampleId) {
    if (loadedFor !== null) setVisitedBefore(loadedFor);
    setLoadedFor(sampleId);
    setRevision(loaded.revision);
    setSelected(null);
    setConflict(null);
    setSaveError(null);
    dispatch({ type: 'load', doc: documentFrom(loaded) });
  }
  const ready = loadedFor === sampleId && !!loaded;
  const doc = ready ? history.present : EMPTY;
  const imageWidth = loaded?.width || sample.data?.width || 1;
  const imageHeight = loaded?.height || sample.data?.height || 1;
  const image = useMemo(() => ({ width: imageWidth, height: imageHeight }), [imageWidth, imageHeight]);
  const dirty = ready && isDirty(history);
  const editable = canEdit && ready;

  const keys = useMemo(() => labelKeys(labels), [labels]);
  const labelByKey = useMemo(() => labelerLabelKeys(labels.map((label) => ({ name: label.name, key: keys.get(label.id) ?? null }))), [labels, keys]);
  const keyOf = useMemo(() => new Map([...labelByKey].map(([key, name]) => [name, key])), [labelByKey]);
  const colors = useMemo(() => new Map(labels.map((label, index) => [label.name, labelColor(label, index)])), [labels]);
  const drawLabel = currentLabel !== null && colors.has(currentLabel) ? currentLabel : (labels[0]?.name ?? null);
  const selectedBox = doc.boxes.find((box) => box.key === selected) ?? null;

  // A model's suggested boxes, shown dashed while the image has none of its own (unlabeled, untouched).
  const suggestion = sample.data && sample.data.id === sampleId ? suggestionOf(sample.data) : null;
  const showSuggestion = !!suggestion && ready && doc.status === 'unlabeled' && doc.boxes.length === 0 && !dirty;
  const ghostBoxes = useMemo<GhostBox[]>(
    () =>
      showSuggestion && suggestion
        ? suggestion.boxes.map((box, position) => ({
            key: String(position),
            label: labels.find((label) => label.id === box.label)?.name ?? `#${box.label}`,
            x: box.x,
            y: box.y,
            width: box.width,
            height: box.height,
            score: box.score,
          }))
        : [],
    [showSuggestion, suggestion, labels],
  );

  /** Accepts the suggested boxes (the server writes them; never over a person's) and loads them as the image's boxes. */
  const acceptBoxes = () => {
    if (!suggestion || !editable) return;
    acceptSuggestion.mutate(
      { ids: [suggestion.id] },
      {
        onSuccess: async () => {
          const current = await fetchAnnotations(sampleId);
          store(current);
          setRevision(current.revision);
          setSelected(null);
          dispatch({ type: 'load', doc: documentFrom(current) });
        },
        onError: (error) => setSaveError(errorMessage(error)),
      },
    );
  };

  const items = useMemo(() => queue.data?.results ?? [], [queue.data]);
  const index = items.findIndex((item) => item.id === sampleId);
  const pages = queue.data ? Math.max(1, Math.ceil(queue.data.count / SAMPLES_PAGE_SIZE)) : 1;
  const position = index >= 0 ? (filters.page - 1) * SAMPLES_PAGE_SIZE + index + 1 : null;
  const previousId = visitedBefore ?? (index > 0 ? items[index - 1].id : null);

  // A revert from the activity log changed the boxes on the server: start again from them.
  const reloadAfterRevert = useCallback(async () => {
    const current = await fetchAnnotations(sampleId);
    store(current);
    setRevision(current.revision);
    setSelected(null);
    setConflict(null);
    dispatch({ type: 'load', doc: documentFrom(current) });
  }, [fetchAnnotations, sampleId, store]);

  const save = useCallback(async (): Promise<boolean> => {
    if (!editable || !dirty) return true;
    if (savingRef.current) return false;
    savingRef.current = true;
    setSaving(true);
    setSaveError(null);
    const sent = history.present;
    try {
      const saved = await saveAnnotations(sampleId, writeOf(sent, revision));
      setRevision(saved.revision);
      dispatch({ type: 'saved', doc: sent });
      setConflict(null);
      return true;
    } catch (error) {
      const current = annotationConflict(error);
      if (current) {
        store(current);
        setConflict(current);
        setRevision(current.revision);
        setSelected(null);
        dispatch({ type: 'load', doc: documentFrom(current) });
      } else {
        setSaveError(errorMessage(error));
      }
      return false;
    } finally {
      savingRef.current = false;
      setSaving(false);
    }
  }, [editable, dirty, history.present, saveAnnotations, sampleId, revision, store]);

  /** Saves, then opens the image `delta` places away in the filter's order (across pages). */
  const go = useCallback(
    async (delta: 1 | -1) => {
      if (!(await save())) return;
      const target = index < 0 ? (delta > 0 ? 0 : items.length - 1) : index + delta;
      if (target >= 0 && target < items.length) {
        if (items[target].id !== sampleId) onNavigate(items[target].id, filters);
        return;
      }
      const page = filters.page + delta;
      if (page < 1 || page > pages) return;
      const next = { ...filters, page };
      const list = await queryClient.fetchQuery({ queryKey: datasetKeys.annotateQueue(datasetId, next), queryFn: () => listSamples(datasetId, next), staleTime: Infinity });
      const found = delta > 0 ? list.results[0] : list.results[list.results.length - 1];
      if (found) onNavigate(found.id, next);
    },
    [save, index, items, sampleId, onNavigate, filters, pages, queryClient, datasetId],
  );

  const copyPrevious = useCallback(async () => {
    if (!editable || previousId === null) return;
    try {
      const previous = await fetchAnnotations(previousId);
      const from = documentFrom(previous).boxes.map(({ key: _key, ...box }) => box);
      dispatch({ type: 'edit', edit: (current) => copyBoxes(current, from, image) });
    } catch (error) {
      setSaveError(errorMessage(error));
    }
  }, [editable, previousId, fetchAnnotations, image]);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (isTyping(event.target)) return;
      const command = labelerCommand(event, labelByKey);
      if (!command) return;
      event.preventDefault();
      switch (command.type) {
        case 'label':
          setCurrentLabel(command.label);
          if (editable && selected) dispatch({ type: 'edit', edit: (current) => relabelBox(current, selected, command.label) });
          break;
        case 'delete':
          if (editable && selected) dispatch({ type: 'edit', edit: (current) => deleteBox(current, selected) });
          setSelected(null);
          break;
        case 'undo':
          if (editable) dispatch({ type: 'undo' });
          break;
        case 'redo':
          if (editable) dispatch({ type: 'redo' });
          break;
        case 'next':
          void go(1);
          break;
        case 'previous':
          void go(-1);
          break;
        case 'save':
          void save();
          break;
        case 'noObjects':
          if (editable) dispatch({ type: 'edit', edit: toggleNoObjects });
          break;
        case 'copyPrevious':
          void copyPrevious();
          break;
        case 'deselect':
          setSelected(null);
          break;
        case 'fit':
          setFitRequest((count) => count + 1);
          break;
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [labelByKey, editable, selected, go, save, copyPrevious]);

  // Closing the tab with unsaved boxes asks first.
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);

  const readOnly = canEdit ? null : t('common:permissions.viewerReadOnly');
  const failed = sample.error ?? annotations.error;
  if (failed) return <Alert color="red">{errorMessage(failed)}</Alert>;
  const hasPrevious = index > 0 || filters.page > 1 || (index < 0 && items.length > 0);
  const hasNext = (index >= 0 && index < items.length - 1) || filters.page < pages || (index < 0 && items.length > 0);
  const saveState = saving ? t('annotate.saving') : dirty ? t('annotate.unsaved') : t('annotate.saved');

  return (
    <Stack gap="sm" data-testid="box-labeler" data-sample={sampleId} data-revision={revision} data-status={doc.status} data-dirty={dirty || undefined}>
      <Group justify="space-between" wrap="nowrap">
        <Group gap="xs" wrap="nowrap">
          <Anchor
            component={Link}
            to={gridLink}
            size="sm"
            data-testid="labeler-back"
            onClick={(event) => {
              // Back to the grid saves first (and stays on a conflict), as moving to another image does.
              if (!dirty) return;
              event.preventDefault();
              void save().then((saved) => saved && navigate(gridLink));
            }}
          >
            {t('annotate.backToGrid')}
          </Anchor>
          <Button size="xs" variant="default" onClick={() => void go(-1)} disabled={!hasPrevious} data-testid="labeler-previous">
            {t('annotate.previous')}
          </Button>
          <Text size="sm" c="dimmed" data-testid="labeler-position">
            {position !== null && queue.data ? t('annotate.position', { position: formatNumber(position), total: formatNumber(queue.data.count) }) : '…'}
          </Text>
          <Button size="xs" variant="default" onClick={() => void go(1)} disabled={!hasNext} data-testid="labeler-next">
            {t('annotate.next')}
          </Button>
        </Group>
        <Text size="sm" fw={600} truncate title={sample.data?.original_name} data-testid="labeler-file">
          {sample.data?.original_name ?? ''}
        </Text>
        <Group gap="xs" wrap="nowrap">
          <Badge color={STATUS_COLORS[doc.status]} variant="light" data-testid="labeler-status">
            {t(`annotate.status.${doc.status}`)}
          </Badge>
          <Text size="xs" c={dirty ? 'orange' : 'dimmed'} data-testid="labeler-save-state">
            {saveState}
          </Text>
          <WithReason reason={readOnly}>
            <Button size="xs" onClick={() => void save()} disabled={!editable || !dirty} loading={saving} data-testid="labeler-save">
              {t('annotate.save')}
            </Button>
          </WithReason>
        </Group>
      </Group>

      {conflict && (
        <Alert color="orange" title={t('annotate.conflict.title')} withCloseButton onClose={() => setConflict(null)} data-testid="labeler-conflict">
          {t('annotate.conflict.body', { count: conflict.annotations.length, revision: conflict.revision })}
        </Alert>
      )}
      {saveError && (
        <Alert color="red" title={t('annotate.notSaved')} withCloseButton onClose={() => setSaveError(null)} data-testid="labeler-error">
          {saveError}
        </Alert>
      )}

      <Grid gap="sm">
        <Grid.Col span={{ base: 12, md: 9 }}>
          <Paper withBorder p={0}>
            {ready && sample.data ? (
              <BoxCanvas
                src={sample.data.image_url}
                image={image}
                boxes={doc.boxes}
                colors={colors}
                selected={selected}
                drawLabel={editable ? drawLabel : null}
                readOnly={!editable}
                fitRequest={fitRequest}
                suggested={ghostBoxes}
                onSelect={setSelected}
                onCreate={(rect) => drawLabel !== null && dispatch({ type: 'edit', edit: (current) => addBox(current, rect, drawLabel, image) })}
                onChange={(key, rect) => dispatch({ type: 'edit', edit: (current) => moveBox(current, key, rect, image) })}
              />
            ) : (
              <Skeleton h={520} />
            )}
          </Paper>
          <Text size="xs" c="dimmed" mt={4} data-testid="labeler-help">
            <Trans t={t} i18nKey="annotate.help" components={{ k: <Kbd /> }} />
          </Text>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 3 }}>
          <Stack gap="sm">
            <Paper withBorder p="sm">
              <Title order={6} mb={6}>
                {t('annotate.labels')}
              </Title>
              {labels.length === 0 ? (
                <Stack gap="xs">
                  <Text size="sm" c="dimmed" data-testid="labeler-no-labels">
                    {t('annotate.noLabels')}
                  </Text>
                  <LabelsManager datasetId={datasetId} labels={labels} canEdit={canEdit} />
                </Stack>
              ) : (
                <Group gap={4}>
                  {labels.map((label) => {
                    const key = keyOf.get(label.name);
                    const color = colors.get(label.name);
                    return (
                      <Button
                        key={label.id}
                        size="compact-xs"
                        variant={drawLabel === label.name ? 'filled' : 'default'}
                        color={color}
                        autoContrast
                        leftSection={<ColorSwatch color={color ?? ''} size={8} />}
                        onClick={() => {
                          setCurrentLabel(label.name);
                          if (editable && selected) dispatch({ type: 'edit', edit: (current) => relabelBox(current, selected, label.name) });
                        }}
                        title={key ? t('annotate.keyTitle', { key: keyCap(key), name: label.name }) : undefined}
                        data-testid={`labeler-label-${label.id}`}
                        data-active={drawLabel === label.name || undefined}
                      >
                        {key ? `${keyCap(key)} · ` : ''}
                        {label.name}
                      </Button>
                    );
                  })}
                </Group>
              )}
            </Paper>

            {showSuggestion && suggestion && (
              <Paper withBorder p="sm" style={{ borderStyle: 'dashed', borderColor: 'var(--mantine-color-violet-5)' }} data-testid="labeler-suggestion">
                <Stack gap={6}>
                  <SuggestionChip suggestion={suggestion} testId="labeler-suggestion-chip" />
                  <Text size="xs" c="dimmed">
                    {t('labeling:suggestion.boxesHidden')}
                  </Text>
                  <AcceptSuggestionButton
                    onAccept={acceptBoxes}
                    disabledReason={readOnly}
                    loading={acceptSuggestion.isPending}
                    keyName={null}
                    label={t('labeling:suggestion.acceptBoxes')}
                    testId="labeler-accept-boxes"
                  />
                </Stack>
              </Paper>
            )}

            <Paper withBorder p="sm">
              <Group justify="space-between" mb={6}>
                <Title order={6}>{t('annotate.boxes', { count: doc.boxes.length })}</Title>
                <WithReason reason={readOnly || (doc.boxes.length > 0 && t('annotate.noObjectsHasBoxes'))}>
                  <Button
                    size="compact-xs"
                    variant={doc.status === 'no_objects' ? 'filled' : 'light'}
                    disabled={!editable || doc.boxes.length > 0}
                    onClick={() => dispatch({ type: 'edit', edit: toggleNoObjects })}
                    data-testid="labeler-no-objects"
                  >
                    {t('annotate.noObjects')}
                  </Button>
                </WithReason>
              </Group>
              <ScrollArea.Autosize mah={260}>
                <Stack gap={2} data-testid="labeler-boxes">
                  {doc.boxes.length === 0 && (
                    <Text size="xs" c="dimmed">
                      {doc.status === 'no_objects' ? t('annotate.reviewedEmpty') : t('annotate.drawHint')}
                    </Text>
                  )}
                  {doc.boxes.map((box, position) => (
                    <Group
                      key={box.key}
                      gap={6}
                      wrap="nowrap"
                      justify="space-between"
                      data-testid="labeler-box"
                      data-label={box.label}
                      data-selected={box.key === selected || undefined}
                      data-geometry={`${box.x},${box.y},${box.width},${box.height}`}
                      style={{ background: box.key === selected ? 'var(--mantine-color-blue-0)' : undefined, borderRadius: 4, padding: '0 4px' }}
                    >
                      <UnstyledButton onClick={() => setSelected(box.key)} style={{ flex: 1, minWidth: 0 }}>
                        <Group gap={6} wrap="nowrap">
                          <ColorSwatch color={colors.get(box.label) ?? '#868e96'} size={10} />
                          <Text size="xs" truncate>
                            {t('annotate.boxRow', { n: position + 1, name: box.label, width: Math.round(box.width), height: Math.round(box.height) })}
                          </Text>
                        </Group>
                      </UnstyledButton>
                      {editable && (
                        <ActionIcon
                          size="xs"
                          variant="subtle"
                          color="red"
                          aria-label={t('annotate.deleteBox', { name: box.label })}
                          onClick={() => {
                            dispatch({ type: 'edit', edit: (current) => deleteBox(current, box.key) });
                            if (selected === box.key) setSelected(null);
                          }}
                          data-testid="labeler-delete-box"
                        >
                          ×
                        </ActionIcon>
                      )}
                    </Group>
                  ))}
                </Stack>
              </ScrollArea.Autosize>
            </Paper>

            <Paper withBorder p="sm">
              <Group gap={4}>
                <Button size="compact-xs" variant="default" disabled={!editable || history.past.length === 0} onClick={() => dispatch({ type: 'undo' })} data-testid="labeler-undo">
                  {t('annotate.undo')}
                </Button>
                <Button size="compact-xs" variant="default" disabled={!editable || history.future.length === 0} onClick={() => dispatch({ type: 'redo' })} data-testid="labeler-redo">
                  {t('annotate.redo')}
                </Button>
                <WithReason reason={readOnly || (previousId === null && t('annotate.noPrevious'))}>
                  <Button size="compact-xs" variant="default" disabled={!editable || previousId === null} onClick={() => void copyPrevious()} data-testid="labeler-copy-previous">
                    {t('annotate.copyPrevious')}
                  </Button>
                </WithReason>
                <Button size="compact-xs" variant="default" onClick={() => setFitRequest((count) => count + 1)} data-testid="labeler-fit">
                  {t('annotate.fit')}
                </Button>
              </Group>
              {selectedBox && (
                <Text size="xs" c="dimmed" mt={6} data-testid="labeler-selected">
                  {t('annotate.selected', { name: selectedBox.label, x: Math.round(selectedBox.x), y: Math.round(selectedBox.y), width: Math.round(selectedBox.width), height: Math.round(selectedBox.height) })}
                </Text>
              )}
            </Paper>
            <ActivityLog
              datasetId={datasetId}
              sampleId={sampleId}
              version={revision}
              canEdit={editable && !dirty}
              readOnlyReason={readOnly ?? (dirty ? t('annotate.activityUnsaved') : null)}
              onReverted={() => void reloadAfterRevert()}
            />
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
