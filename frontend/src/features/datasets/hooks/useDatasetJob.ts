import { useQuery } from '@tanstack/react-query';
import { datasetKeys } from '../api/keys';
import { getJob, isJobFinished } from '../api/versions';

const POLL_MS = 1000;

/** A version or export job of the dataset, polled every second until it has finished. */
export function useDatasetJob(datasetId: number, jobId: number | null) {
  return useQuery({
    queryKey: datasetKeys.job(datasetId, jobId),
    queryFn: () => getJob(jobId as number),
    enabled: jobId !== null,
    refetchInterval: (query) => (query.state.data && isJobFinished(query.state.data) ? false : POLL_MS),
  });
}
