import { api, unwrap } from '@/api/client';
import { datasetKeys as resourceKeys } from '@/api/queryKeys';

// TEMPORARY hand types mirroring API.md §4 until h3's serializers are in the schema; then these
// become paths[...] types of the generated client.
export type Strategy = 'uncertainty_diversity' | 'uncertainty' | 'random';
export const STRATEGIES: readonly Strategy[] = ['uncertainty_diversity', 'uncertainty', 'random'];
export type RoundStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export type SmartLabelingSummary = {
  kind: 'smart_labeling_summary';
  version: number;
  model: string;
  strategy: Strategy;
  labeled: number;
  unlabeled: number;
  ranked: number;
  estimated_accuracy: number | null;
  /** Suggestions per class, by the class's index in the dataset's labels (the pool's classes). */
  per_class_suggested: number[];
  /** Ten bins over [0, 1]. */
  confidence_histogram: number[];
  seconds: number;
};

export type SmartRound = {
  id: number;
  dataset: number;
  number: number;
  status: RoundStatus;
  job: number | null;
  params: { batch_size: number; strategy: Strategy; seed: number };
  summary: SmartLabelingSummary | null;
  error: string;
  created_at: string;
  finished_at: string | null;
};

export type SuggestedBox = { label: number | null; label_name?: string; x: number; y: number; width: number; height: number; score: number };
export type SuggestionStatus = 'pending' | 'accepted' | 'rejected' | 'superseded';

export type Suggestion = {
  id: number;
  round: number;
  sample: { id: number; original_name: string; thumbnail_url: string; text: string; width: number; height: number };
  label: number | null;
  label_name: string | null;
  confidence: number;
  scores: { label: number; score: number }[];
  boxes: SuggestedBox[];
  value: number | null;
  priority: number;
  rank: number | null;
  status: SuggestionStatus;
};

/** The latest pending suggestion a sample list/detail item carries (null: none). */
export type SampleSuggestion = { id: number; label: number | null; label_name: string | null; confidence: number; boxes: SuggestedBox[]; round: number };

export type Page<T> = { count: number; next: string | null; previous: string | null; results: T[] };
export type SuggestionOrdering = 'rank' | '-confidence' | 'confidence' | 'id';
export type SuggestionFilters = {
  status?: SuggestionStatus;
  round?: number;
  label?: number;
  minConfidence?: number;
  maxConfidence?: number;
  ordering?: SuggestionOrdering;
  page?: number;
  pageSize?: number;
};

/** Accept or reject these suggestions, or every pending one matching a class and a confidence range. */
export type SuggestionSelection =
  | { ids: number[] }
  | { label: number; min_confidence: number; max_confidence?: number; round?: number; min_score?: number };
export type AcceptResult = { accepted: number; skipped: { id: number; reason: 'human_labeled' | 'not_pending' }[] };
export type RejectResult = { rejected: number };

export const SUGGESTIONS_PAGE_SIZE = 48;
/** The most suggestions one page may hold (the server's page size limit): "Label the next N" reads one page. */
export const MAX_SUGGESTIONS_PAGE = 500;

export const smartKeys = {
  rounds: (datasetId: number) => [...resourceKeys.detail(datasetId), 'smart-rounds'] as const,
  round: (datasetId: number, id: number) => [...smartKeys.rounds(datasetId), id] as const,
  suggestions: (datasetId: number) => [...resourceKeys.detail(datasetId), 'suggestions'] as const,
  suggestionPage: (datasetId: number, filters: SuggestionFilters) => [...smartKeys.suggestions(datasetId), filters] as const,
};

type LooseCall = (path: string, init: { params: { path: Record<string, number>; query?: Record<string, unknown> }; body?: unknown }) => Promise<{ data?: unknown; response: Response }>;
const loose = api as unknown as { GET: LooseCall; POST: LooseCall };

export function listRounds(datasetId: number) {
  return unwrap(loose.GET('/api/v1/datasets/{dataset_id}/smart-labeling/', { params: { path: { dataset_id: datasetId }, query: { page_size: 100 } } })) as Promise<Page<SmartRound>>;
}

export function startRound(datasetId: number, body: { batch_size: number; strategy: Strategy; seed?: number }) {
  return unwrap(loose.POST('/api/v1/datasets/{dataset_id}/smart-labeling/', { params: { path: { dataset_id: datasetId } }, body })) as Promise<SmartRound>;
}

export function suggestionQuery(filters: SuggestionFilters): Record<string, unknown> {
  const query: Record<string, unknown> = { page_size: filters.pageSize ?? SUGGESTIONS_PAGE_SIZE };
  if (filters.page && filters.page > 1) query.page = filters.page;
  if (filters.status) query.status = filters.status;
  if (filters.round !== undefined) query.round = filters.round;
  if (filters.label !== undefined) query.label = filters.label;
  if (filters.minConfidence !== undefined && filters.minConfidence > 0) query.min_confidence = filters.minConfidence;
  if (filters.maxConfidence !== undefined && filters.maxConfidence < 1) query.max_confidence = filters.maxConfidence;
  if (filters.ordering) query.ordering = filters.ordering;
  return query;
}

export function listSuggestions(datasetId: number, filters: SuggestionFilters) {
  return unwrap(
    loose.GET('/api/v1/datasets/{dataset_id}/suggestions/', { params: { path: { dataset_id: datasetId }, query: suggestionQuery(filters) } }),
  ) as Promise<Page<Suggestion>>;
}

export function acceptSuggestions(datasetId: number, selection: SuggestionSelection) {
  return unwrap(loose.POST('/api/v1/datasets/{dataset_id}/suggestions/accept/', { params: { path: { dataset_id: datasetId } }, body: selection })) as Promise<AcceptResult>;
}

export function rejectSuggestions(datasetId: number, selection: SuggestionSelection) {
  return unwrap(loose.POST('/api/v1/datasets/{dataset_id}/suggestions/reject/', { params: { path: { dataset_id: datasetId } }, body: selection })) as Promise<RejectResult>;
}

/** A sample's pending suggestion, as sample list/detail items carry it (null when none). */
export function suggestionOf(sample: object): SampleSuggestion | null {
  return (sample as { suggestion?: SampleSuggestion | null }).suggestion ?? null;
}
