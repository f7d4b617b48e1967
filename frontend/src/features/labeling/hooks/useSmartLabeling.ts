import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { datasetKeys } from '@/api/queryKeys';
import {
  acceptSuggestions,
  listRounds,
  listSuggestions,
  rejectSuggestions,
  smartKeys,
  startRound,
  type Strategy,
  type SuggestionFilters,
  type SuggestionSelection,
} from '../api/smart';

/** Poll about once a second while a round runs. */
const LIVE_INTERVAL_MS = 1000;

function isActive(status: string | undefined): boolean {
  return status === 'queued' || status === 'running';
}

/**
 * The dataset's smart-labeling rounds, newest first, polled while one is queued or running; when a
 * round finishes, everything under the dataset (its suggestions, the samples' `suggestion`) is read again.
 */
export function useSmartRounds(datasetId: number) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: smartKeys.rounds(datasetId),
    queryFn: () => listRounds(datasetId),
    refetchInterval: (state) => (state.state.data?.results.some((round) => isActive(round.status)) ? LIVE_INTERVAL_MS : false),
  });
  const running = query.data?.results.some((round) => isActive(round.status)) ?? false;
  const wasRunning = useRef(running);
  useEffect(() => {
    if (wasRunning.current && !running) {
      void queryClient.invalidateQueries({ queryKey: smartKeys.suggestions(datasetId) });
      void queryClient.invalidateQueries({ queryKey: [...datasetKeys.detail(datasetId), 'samples'] });
    }
    wasRunning.current = running;
  }, [running, queryClient, datasetId]);
  return query;
}

export function useStartRound(datasetId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { batch_size: number; strategy: Strategy }) => startRound(datasetId, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: smartKeys.rounds(datasetId) }),
  });
}

export function useSuggestionPage(datasetId: number, filters: SuggestionFilters, enabled = true) {
  return useQuery({
    queryKey: smartKeys.suggestionPage(datasetId, filters),
    queryFn: () => listSuggestions(datasetId, filters),
    placeholderData: keepPreviousData,
    enabled,
  });
}

/** A decision changes samples, labels, counts and suggestions: everything under the dataset is read again. */
function useRefreshDataset(datasetId: number) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: datasetKeys.detail(datasetId) });
}

export function useAcceptSuggestions(datasetId: number) {
  const refresh = useRefreshDataset(datasetId);
  return useMutation({ mutationFn: (selection: SuggestionSelection) => acceptSuggestions(datasetId, selection), onSuccess: refresh });
}

export function useRejectSuggestions(datasetId: number) {
  const refresh = useRefreshDataset(datasetId);
  return useMutation({ mutationFn: (selection: SuggestionSelection) => rejectSuggestions(datasetId, selection), onSuccess: refresh });
}
