import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { datasetKeys } from '@/api/queryKeys';
import {
  closeTask,
  createTask,
  getAgreement,
  getTask,
  listItems,
  listTasks,
  reviewItems,
  taskKeys,
  type ItemReview,
  type LabelingTaskCreateBody,
  type ReviewBody,
} from '../api/tasks';

/** Progress moves while annotators work: lists and pages refresh on this period. */
const PROGRESS_REFRESH_MS = 15_000;

export function useTasks(dataset: number | null, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: taskKeys.list(dataset),
    queryFn: () => listTasks(dataset),
    enabled,
    refetchInterval: PROGRESS_REFRESH_MS,
  });
}

export function useTask(id: number) {
  return useQuery({ queryKey: taskKeys.detail(id), queryFn: () => getTask(id), enabled: Number.isInteger(id), refetchInterval: PROGRESS_REFRESH_MS });
}

export function useCreateTask() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: LabelingTaskCreateBody) => createTask(body),
    meta: { handlesOwnErrors: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: taskKeys.all }),
  });
}

export function useCloseTask(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => closeTask(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: taskKeys.all }),
  });
}

export function useAgreement(id: number) {
  return useQuery({ queryKey: taskKeys.agreement(id), queryFn: () => getAgreement(id), enabled: Number.isInteger(id) });
}

export function useTaskItems(id: number, review: ItemReview, page: number) {
  return useQuery({
    queryKey: taskKeys.items(id, review, page),
    queryFn: () => listItems(id, review, page),
    enabled: Number.isInteger(id),
    placeholderData: keepPreviousData,
  });
}

/** A review writes the accepted answers to the dataset's samples: its pages refresh too. */
export function useReview(id: number, datasetId: number | undefined) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ReviewBody) => reviewItems(id, body),
    meta: { handlesOwnErrors: true },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: taskKeys.detail(id) });
      await queryClient.invalidateQueries({ queryKey: taskKeys.list(null) });
      if (datasetId !== undefined) await queryClient.invalidateQueries({ queryKey: datasetKeys.detail(datasetId) });
    },
  });
}
