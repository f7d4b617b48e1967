import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  batchKeys,
  cancelBatchPrediction,
  createBatchPrediction,
  deleteBatchPrediction,
  isLive,
  listBatchPredictions,
  type BatchFilters,
} from './api';

/** Polled every second while a run is queued or running (the live progress bar). */
export const BATCH_POLL_MS = 1000;

export function useBatchPredictions(filters: BatchFilters) {
  return useQuery({
    queryKey: batchKeys.list(filters),
    queryFn: () => listBatchPredictions(filters),
    refetchInterval: (query) => ((query.state.data?.results ?? []).some((batch) => isLive(batch.status)) ? BATCH_POLL_MS : false),
  });
}

function useInvalidate() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: batchKeys.all });
}

export function useCreateBatchPrediction() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: createBatchPrediction, onSuccess: invalidate, meta: { handlesOwnErrors: true } });
}

export function useCancelBatchPrediction() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: cancelBatchPrediction, onSuccess: invalidate });
}

export function useDeleteBatchPrediction() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: deleteBatchPrediction, onSuccess: invalidate });
}
