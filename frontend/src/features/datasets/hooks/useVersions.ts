import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { datasetKeys } from '../api/keys';
import { createVersion, listVersions, type DatasetVersionCreateBody } from '../api/versions';

export function useVersions(datasetId: number) {
  return useQuery({ queryKey: datasetKeys.versions(datasetId), queryFn: () => listVersions(datasetId), enabled: Number.isFinite(datasetId) });
}

export function useCreateVersion(datasetId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: DatasetVersionCreateBody) => createVersion(datasetId, body),
    meta: { handlesOwnErrors: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: datasetKeys.versions(datasetId) }),
  });
}
