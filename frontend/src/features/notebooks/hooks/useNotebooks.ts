import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { currentNotebook, isTransitional, notebookKeys, startNotebook, stopNotebook, type Notebook } from '../api/notebooks';

/** Poll while the server is starting or stopping; a running one is re-read now and then (idle stop). */
export const TRANSITION_INTERVAL_MS = 1000;
export const RUNNING_INTERVAL_MS = 15000;

export function useCurrentNotebook(projectId: number) {
  return useQuery({
    queryKey: notebookKeys.project(projectId),
    queryFn: () => currentNotebook(projectId),
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      if (isTransitional(status)) return TRANSITION_INTERVAL_MS;
      return status === 'running' ? RUNNING_INTERVAL_MS : false;
    },
  });
}

export function useStartNotebook(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: startNotebook,
    meta: { handlesOwnErrors: true },
    onSuccess: (notebook: Notebook) => queryClient.setQueryData(notebookKeys.project(projectId), notebook),
  });
}

export function useStopNotebook(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: stopNotebook,
    meta: { handlesOwnErrors: true },
    onSuccess: (notebook: Notebook) => queryClient.setQueryData(notebookKeys.project(projectId), notebook),
  });
}
