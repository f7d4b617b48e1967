import { useQuery } from '@tanstack/react-query';
import { getImport, isImportActive, listImports } from '../api/imports';
import { datasetKeys } from '../api/keys';

const POLL_MS = 1000;

export function useImports(datasetId: number) {
  return useQuery({
    queryKey: datasetKeys.imports(datasetId),
    queryFn: () => listImports(datasetId),
    refetchInterval: (query) => (query.state.data?.results.some(isImportActive) ? POLL_MS : false),
  });
}

/** One import, polled while its background job runs. */
export function useImportBatch(datasetId: number, batchId: number | null) {
  return useQuery({
    queryKey: datasetKeys.importBatch(datasetId, batchId ?? -1),
    queryFn: () => getImport(datasetId, batchId as number),
    enabled: batchId !== null,
    refetchInterval: (query) => (query.state.data && isImportActive(query.state.data) ? POLL_MS : false),
  });
}
