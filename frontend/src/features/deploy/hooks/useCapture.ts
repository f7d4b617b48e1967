import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  captureKeys,
  deleteCaptures,
  getCapturePolicy,
  listCaptures,
  sendCaptures,
  updateCapturePolicy,
  type CaptureFilters,
  type CapturePolicy,
} from '../api/capture';
import { deployKeys } from '../api/keys';

/** The captured list refreshes while the tab is open: requests keep arriving. */
export const CAPTURE_REFRESH_MS = 5000;

export function useCapturePolicy(deploymentId: number) {
  return useQuery({ queryKey: captureKeys.policy(deploymentId), queryFn: () => getCapturePolicy(deploymentId), refetchInterval: CAPTURE_REFRESH_MS });
}

export function useUpdateCapturePolicy(deploymentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateCapturePolicy,
    onSuccess: (policy: CapturePolicy) => {
      queryClient.setQueryData(captureKeys.policy(deploymentId), policy);
      // The change is a history entry on the overview.
      return queryClient.invalidateQueries({ queryKey: deployKeys.deployment(deploymentId), exact: true });
    },
    meta: { handlesOwnErrors: true },
  });
}

export function useCaptures(deploymentId: number, filters: CaptureFilters) {
  return useQuery({
    queryKey: captureKeys.list(deploymentId, filters),
    queryFn: () => listCaptures(deploymentId, filters),
    placeholderData: keepPreviousData,
    refetchInterval: CAPTURE_REFRESH_MS,
  });
}

function useCaptureMutation<A, R>(deploymentId: number, mutationFn: (args: A) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: captureKeys.all(deploymentId) }),
    meta: { handlesOwnErrors: true },
  });
}

export function useDeleteCaptures(deploymentId: number) {
  return useCaptureMutation(deploymentId, deleteCaptures);
}

export function useSendCaptures(deploymentId: number) {
  return useCaptureMutation(deploymentId, sendCaptures);
}
