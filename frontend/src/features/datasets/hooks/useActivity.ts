import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { listSampleActivity, revertActivity } from '../api/activity';
import { datasetKeys } from '../api/keys';

/** A sample's activity log, newest first; `version` (the sample's label_version or revision) makes each write refetch it. */
export function useSampleActivity(datasetId: number, sampleId: number, version: number) {
  return useQuery({
    queryKey: datasetKeys.activity(datasetId, sampleId, version),
    queryFn: () => listSampleActivity(datasetId, sampleId),
    enabled: Number.isInteger(sampleId),
  });
}

/** Reverts one entry; the grid, counts, boxes and the log refresh (on a conflict too: it shows what is there now). */
export function useRevertActivity(datasetId: number, sampleId: number) {
  const queryClient = useQueryClient();
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: datasetKeys.activity(datasetId, sampleId) }),
      queryClient.invalidateQueries({ queryKey: datasetKeys.samples(datasetId) }),
      queryClient.invalidateQueries({ queryKey: datasetKeys.sample(datasetId, sampleId) }),
      queryClient.invalidateQueries({ queryKey: datasetKeys.statistics(datasetId) }),
      queryClient.invalidateQueries({ queryKey: datasetKeys.labels(datasetId) }),
    ]);
  return useMutation({
    mutationFn: (activityId: number) => revertActivity(datasetId, activityId),
    meta: { handlesOwnErrors: true },
    onSettled: refresh,
  });
}
