import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { assignmentKeys, countAssignments, getAssignment, listAssignments, submitAssignment, type SubmitBody } from '../api/assignments';
import { taskKeys } from '../api/tasks';
import { nextToDo } from '../components/queueOrder';

/** The caller's queue (all their tasks, or one). */
export function useAssignments(task: number | null = null) {
  return useQuery({ queryKey: assignmentKeys.list(task), queryFn: () => listAssignments(task) });
}

/** Whether the caller has assignments: the navigation shows "My labeling" to anyone who has. */
export function useHasAssignments({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: [...assignmentKeys.all, 'count'] as const,
    queryFn: countAssignments,
    enabled,
    select: (page) => page.count > 0,
    staleTime: 60_000,
  });
}

export function useAssignment(id: number) {
  return useQuery({ queryKey: assignmentKeys.detail(id), queryFn: () => getAssignment(id), enabled: Number.isInteger(id) });
}

export function useSubmitAssignment(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SubmitBody) => submitAssignment(id, body),
    meta: { handlesOwnErrors: true },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: assignmentKeys.all });
      await queryClient.invalidateQueries({ queryKey: taskKeys.all });
    },
  });
}

/**
 * Finds the assignment to open after `currentId`: the caller's queue for the task is read fresh (it
 * may not have loaded yet when a fast annotator answers, and the answer just changed it).
 */
export function useNextAssignment() {
  const queryClient = useQueryClient();
  return async (task: number, currentId: number) => {
    const queue = await queryClient.fetchQuery({ queryKey: assignmentKeys.list(task), queryFn: () => listAssignments(task), staleTime: 0 });
    return nextToDo(queue.results, currentId);
  };
}
