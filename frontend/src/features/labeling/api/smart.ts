import { api, unwrap } from '@/api/client';
import { datasetKeys as resourceKeys } from '@/api/queryKeys';
import type { components, paths } from '@/api/schema';

export type SmartRound = components['schemas']['SmartRound'];
export type SmartLabelingSummary = components['schemas']['SmartLabelingSummary'];
export type Strategy = components['schemas']['StrategyEnum'];
export const STRATEGIES = ['uncertainty_diversity', 'uncertainty', 'random'] as const satisfies readonly Strategy[];
export type Suggestion = components['schemas']['Suggestion'];
export type SuggestionStatus = Suggestion['status'];
/** The latest pending suggestion a sample list/detail item carries (null: none). */
export type SampleSuggestion = components['schemas']['SampleSuggestion'];
export type SuggestedBox = components['schemas']['SampleSuggestionBox'];
export type AcceptResult = components['schemas']['SuggestionAcceptResult'];
type SuggestionQuery = NonNullable<paths['/api/v1/datasets/{dataset_id}/suggestions/']['get']['parameters']['query']>;
export type SuggestionOrdering = NonNullable<SuggestionQuery['ordering']>;
export type SuggestionSource = NonNullable<SuggestionQuery['source']>;
export type SuggestionFilters = {
  status?: SuggestionStatus;
  round?: number;
  /** capture: only suggestions from production (a deployment's answers to captured requests). */
  source?: SuggestionSource;
  label?: number;
  minConfidence?: number;
  maxConfidence?: number;
  ordering?: SuggestionOrdering;
  page?: number;
  pageSize?: number;
};

/** Accept or reject these suggestions, or every pending one matching a class and a confidence range. */
export type SuggestionSelection = components['schemas']['SuggestionAcceptRequest'];

export const SUGGESTIONS_PAGE_SIZE = 48;
/** The most suggestions one page may hold (the server's page size limit): "Label the next N" reads one page. */
export const MAX_SUGGESTIONS_PAGE = 500;

export const smartKeys = {
  rounds: (datasetId: number) => [...resourceKeys.detail(datasetId), 'smart-rounds'] as const,
  suggestions: (datasetId: number) => [...resourceKeys.detail(datasetId), 'suggestions'] as const,
  suggestionPage: (datasetId: number, filters: SuggestionFilters) => [...smartKeys.suggestions(datasetId), filters] as const,
};

export function listRounds(datasetId: number) {
  return unwrap(api.GET('/api/v1/datasets/{dataset_id}/smart-labeling/', { params: { path: { dataset_id: datasetId }, query: { page_size: 100 } } }));
}

export function startRound(datasetId: number, body: { batch_size: number; strategy: Strategy; seed?: number }) {
  return unwrap(api.POST('/api/v1/datasets/{dataset_id}/smart-labeling/', { params: { path: { dataset_id: datasetId } }, body }));
}

export function suggestionQuery(filters: SuggestionFilters): SuggestionQuery {
  const query: SuggestionQuery = { page_size: filters.pageSize ?? SUGGESTIONS_PAGE_SIZE };
  if (filters.page && filters.page > 1) query.page = filters.page;
  if (filters.status) query.status = filters.status;
  if (filters.round !== undefined) query.round = filters.round;
  if (filters.source !== undefined) query.source = filters.source;
  if (filters.label !== undefined) query.label = filters.label;
  if (filters.minConfidence !== undefined && filters.minConfidence > 0) query.min_confidence = filters.minConfidence;
  if (filters.maxConfidence !== undefined && filters.maxConfidence < 1) query.max_confidence = filters.maxConfidence;
  if (filters.ordering) query.ordering = filters.ordering;
  return query;
}

export function listSuggestions(datasetId: number, filters: SuggestionFilters) {
  return unwrap(api.GET('/api/v1/datasets/{dataset_id}/suggestions/', { params: { path: { dataset_id: datasetId }, query: suggestionQuery(filters) } }));
}

export function acceptSuggestions(datasetId: number, selection: SuggestionSelection) {
  return unwrap(api.POST('/api/v1/datasets/{dataset_id}/suggestions/accept/', { params: { path: { dataset_id: datasetId } }, body: selection }));
}

export function rejectSuggestions(datasetId: number, selection: SuggestionSelection) {
  const { min_score: _minScore, ...body } = selection;
  return unwrap(api.POST('/api/v1/datasets/{dataset_id}/suggestions/reject/', { params: { path: { dataset_id: datasetId } }, body }));
}

/** A sample's pending suggestion, as sample list/detail items carry it (null when none). */
export function suggestionOf(sample: { suggestion?: SampleSuggestion | null }): SampleSuggestion | null {
  return sample.suggestion ?? null;
}
