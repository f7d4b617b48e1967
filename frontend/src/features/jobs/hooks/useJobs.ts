import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { isActive } from '../api/jobs';
import { EMPTY_LOGS, readMoreLogs, type LogState } from '../api/logs';
import {
  cancelJob,
  createJob,
  getJob,
  jobKeys,
  listJobEvents,
  listJobKinds,
  listJobs,
  retryJob,
  type Job,
  type JobFilters,
} from '../api/jobs';

/** Poll about once a second while something shown can still change, and not at all otherwise. */
export const LIVE_INTERVAL_MS = 1000;

export function useJobs(filters: JobFilters) {
  return useQuery({
    queryKey: jobKeys.list(filters),
    queryFn: () => listJobs(filters),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.results.some((job) => isActive(job.status)) ? LIVE_INTERVAL_MS : false),
  });
}

export function useJob(id: number | null) {
  return useQuery({
    queryKey: jobKeys.detail(id ?? -1),
    queryFn: () => getJob(id as number),
    enabled: id !== null,
    refetchInterval: (query) => (isActive(query.state.data?.status) ? LIVE_INTERVAL_MS : false),
  });
}

export function useJobEvents(id: number | null, live: boolean) {
  return useQuery({
    queryKey: jobKeys.events(id ?? -1),
    queryFn: () => listJobEvents(id as number),
    enabled: id !== null,
    refetchInterval: live ? LIVE_INTERVAL_MS : false,
  });
}

/**
 * A job's log lines, read on from the last one: polled while the job runs (and until the server says
 * the log is finished), kept in the cache so a remount goes on where it was.
 */
export function useJobLogs(id: number, live: boolean) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: jobKeys.logs(id),
    queryFn: () => readMoreLogs(id, queryClient.getQueryData<LogState>(jobKeys.logs(id)) ?? EMPTY_LOGS),
    refetchInterval: (query) => (live || (query.state.data !== undefined && !query.state.data.finished) ? LIVE_INTERVAL_MS : false),
  });
}

export function useJobKinds() {
  return useQuery({ queryKey: jobKeys.kinds, queryFn: listJobKinds, staleTime: 5 * 60_000 });
}

function useStoreJob() {
  const queryClient = useQueryClient();
  return (job: Job) => {
    queryClient.setQueryData(jobKeys.detail(job.id), job);
    return queryClient.invalidateQueries({ queryKey: jobKeys.lists() });
  };
}

export function useCreateJob() {
  const storeJob = useStoreJob();
  return useMutation({ mutationFn: createJob, onSuccess: storeJob });
}

export function useCancelJob() {
  const storeJob = useStoreJob();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: cancelJob,
    onSuccess: async (job) => {
      await storeJob(job);
      await queryClient.invalidateQueries({ queryKey: jobKeys.events(job.id) });
    },
  });
}

export function useRetryJob() {
  const storeJob = useStoreJob();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: retryJob,
    onSuccess: async (job) => {
      await storeJob(job);
      await queryClient.invalidateQueries({ queryKey: jobKeys.events(job.id) });
    },
  });
}
