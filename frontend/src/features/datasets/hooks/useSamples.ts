import { keepPreviousData, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { i18n } from '@/i18n';
import { notifyError } from '@/lib/notifications';
import { datasetKeys } from '../api/keys';
import type { Label } from '../api/labels';
import {
  bulkLabel,
  conflictsOf,
  listSamples,
  setSampleLabel,
  type CurrentLabel,
  type Sample,
  type SampleFilters,
  type SamplePage,
} from '../api/samples';

export function useSamplePage(datasetId: number, filters: SampleFilters, enabled = true) {
  return useQuery({
    queryKey: datasetKeys.samplePage(datasetId, filters),
    queryFn: () => listSamples(datasetId, filters),
    placeholderData: keepPreviousData,
    enabled,
  });
}

type Known = Pick<Sample, 'id' | 'label' | 'label_name' | 'label_version'>;

function pageQueries(datasetId: number) {
  return { queryKey: [...datasetKeys.samples(datasetId), 'page'] };
}

/** The freshest copy of a sample among the cached pages. */
function findCached(queryClient: QueryClient, datasetId: number, id: number): Known | undefined {
  let found: Known | undefined;
  const consider = (sample: Known | undefined) => {
    if (sample && sample.id === id && (!found || sample.label_version > found.label_version)) found = sample;
  };
  for (const [, page] of queryClient.getQueriesData<SamplePage>(pageQueries(datasetId))) page?.results.forEach(consider);
  return found;
}

function shiftCounts(counts: SamplePage['counts'], from: number | null, to: number | null): SamplePage['counts'] {
  if (from === to) return counts;
  const perLabel = counts.per_label.map((row) => {
    if (row.id === from) return { ...row, count: Math.max(0, row.count - 1) };
    if (row.id === to) return { ...row, count: row.count + 1 };
    return row;
  });
  let { labeled, unlabeled } = counts;
  if (from === null && to !== null) {
    labeled += 1;
    unlabeled -= 1;
  } else if (from !== null && to === null) {
    labeled -= 1;
    unlabeled += 1;
  }
  return { ...counts, per_label: perLabel, labeled, unlabeled: Math.max(0, unlabeled) };
}

/** Writes the server's view of samples into every cached page (and their dataset-wide counts). */
function storeSamples(queryClient: QueryClient, datasetId: number, updates: Known[]) {
  const previous = new Map(updates.map((update) => [update.id, findCached(queryClient, datasetId, update.id)?.label ?? null]));
  const byId = new Map(updates.map((update) => [update.id, update]));
  queryClient.setQueriesData<SamplePage>(pageQueries(datasetId), (page) => {
    if (!page) return page;
    let counts = page.counts;
    for (const update of updates) counts = shiftCounts(counts, previous.get(update.id) ?? null, update.label);
    return { ...page, counts, results: page.results.map((sample) => (byId.has(sample.id) ? { ...sample, ...byId.get(sample.id) } : sample)) };
  });
}

export type LabelConflictState = { message: string; current: CurrentLabel[] };
type UndoEntry = { items: { id: number; previous: number | null }[] };

/**
 * Label writes for the labeler: queued so each one sends the label_version the client last saw
 * (its own previous write included), stored into the cached pages, undoable, and on a 409 the
 * server's current values are shown and the grid refreshed, never overwritten.
 */
export function useLabeling(datasetId: number, labels: Label[]) {
  const queryClient = useQueryClient();
  const chain = useRef<Promise<void>>(Promise.resolve());
  const undoStack = useRef<UndoEntry[]>([]);
  const [undoDepth, setUndoDepth] = useState(0);
  const [pending, setPending] = useState(0);
  const [conflict, setConflict] = useState<LabelConflictState | null>(null);
  // The latest labels for the names of a bulk write's answer, which arrives after later renders.
  const labelsRef = useRef(labels);
  useEffect(() => {
    labelsRef.current = labels;
  }, [labels]);

  const labelName = (id: number | null) => (id === null ? null : (labelsRef.current.find((label) => label.id === id)?.name ?? null));

  const refreshAfterWrite = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: datasetKeys.labels(datasetId) });
    void queryClient.invalidateQueries({ queryKey: datasetKeys.statistics(datasetId) });
    void queryClient.invalidateQueries({ queryKey: datasetKeys.detail(datasetId), exact: true });
  }, [queryClient, datasetId]);

  const write = useCallback(
    async (ids: number[], label: number | null, recordUndo: boolean) => {
      const items = ids
        .map((id) => findCached(queryClient, datasetId, id))
        .filter((sample): sample is Known => !!sample && sample.label !== label);
      if (items.length === 0) return;
      try {
        let updated: Known[];
        if (items.length === 1) {
          const sample = await setSampleLabel(datasetId, items[0].id, label, items[0].label_version);
          updated = [{ id: sample.id, label: sample.label, label_name: sample.label_name, label_version: sample.label_version }];
        } else {
          const result = await bulkLabel(datasetId, label, items.map((item) => ({ id: item.id, label_version: item.label_version })));
          updated = result.samples.map((item) => ({ id: item.id, label: item.label, label_name: labelName(item.label), label_version: item.label_version }));
        }
        storeSamples(queryClient, datasetId, updated);
        if (recordUndo) {
          undoStack.current.push({ items: items.map((item) => ({ id: item.id, previous: item.label })) });
          setUndoDepth(undoStack.current.length);
        }
        refreshAfterWrite();
      } catch (error) {
        const current = conflictsOf(error);
        if (current.length > 0) {
          storeSamples(queryClient, datasetId, current);
          setConflict({ message: error instanceof Error ? error.message : i18n.t('datasets:labeling.conflict.changed'), current });
          undoStack.current = [];
          setUndoDepth(0);
          void queryClient.invalidateQueries({ queryKey: datasetKeys.samples(datasetId) });
          refreshAfterWrite();
        } else {
          notifyError(error, i18n.t('datasets:labeling.notSaved'));
          void queryClient.invalidateQueries({ queryKey: datasetKeys.labels(datasetId) });
        }
      }
    },
    [queryClient, datasetId, refreshAfterWrite],
  );

  const enqueue = useCallback((task: () => Promise<void>) => {
    setPending((count) => count + 1);
    chain.current = chain.current.then(task).finally(() => setPending((count) => count - 1));
    return chain.current;
  }, []);

  /** Gives `label` (a label id, or null to unlabel) to the samples. */
  const assign = useCallback((ids: number[], label: number | null) => enqueue(() => write(ids, label, true)), [enqueue, write]);

  /** Reverts the last assignment, each sample back to the label it had. */
  const undo = useCallback(() => {
    const entry = undoStack.current.pop();
    setUndoDepth(undoStack.current.length);
    if (!entry) return Promise.resolve();
    return enqueue(async () => {
      const groups = new Map<number | null, number[]>();
      for (const item of entry.items) groups.set(item.previous, [...(groups.get(item.previous) ?? []), item.id]);
      for (const [previous, ids] of groups) await write(ids, previous, false);
    });
  }, [enqueue, write]);

  return { assign, undo, canUndo: undoDepth > 0, pending, conflict, clearConflict: () => setConflict(null) };
}
