import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createDataset, getDataset, getStatistics, listDatasets } from '../api/datasets';
import { datasetKeys } from '../api/keys';

export function useDatasets(projectId: number) {
  return useQuery({ queryKey: datasetKeys.list(projectId), queryFn: () => listDatasets(projectId), enabled: Number.isFinite(projectId) });
}

export function useDataset(id: number) {
  return useQuery({ queryKey: datasetKeys.detail(id), queryFn: () => getDataset(id), enabled: Number.isFinite(id) });
}

export function useStatistics(id: number) {
  return useQuery({ queryKey: datasetKeys.statistics(id), queryFn: () => getStatistics(id) });
}

export function useCreateDataset() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createDataset,
    meta: { handlesOwnErrors: true },
    onSuccess: (dataset) => {
      queryClient.setQueryData(datasetKeys.detail(dataset.id), dataset);
      return queryClient.invalidateQueries({ queryKey: datasetKeys.list(dataset.project) });
    },
  });
}

/** After samples or labels change: the counts shown elsewhere on the dataset page are stale. */
export function useInvalidateDatasetCounts() {
  const queryClient = useQueryClient();
  return (datasetId: number) =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: datasetKeys.detail(datasetId), exact: true }),
      queryClient.invalidateQueries({ queryKey: datasetKeys.statistics(datasetId) }),
      queryClient.invalidateQueries({ queryKey: datasetKeys.labels(datasetId) }),
    ]);
}
