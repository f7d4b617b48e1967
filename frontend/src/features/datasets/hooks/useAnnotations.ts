import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { getAnnotations, getSample, putAnnotations, type AnnotationsWrite, type SampleAnnotations } from '../api/annotations';
import { datasetKeys } from '../api/keys';
import { listSamples, type SampleFilters } from '../api/samples';

export function useSample(datasetId: number, sampleId: number) {
  return useQuery({ queryKey: datasetKeys.sample(datasetId, sampleId), queryFn: () => getSample(datasetId, sampleId), enabled: Number.isInteger(sampleId) });
}

/** A sample's annotations; not refetched behind the labeler's back (it reloads them itself on a conflict). */
export function useSampleAnnotations(datasetId: number, sampleId: number) {
  return useQuery({
    queryKey: datasetKeys.annotations(datasetId, sampleId),
    queryFn: () => getAnnotations(datasetId, sampleId),
    enabled: Number.isInteger(sampleId),
    refetchOnWindowFocus: false,
  });
}

/** The page of images the labeler steps through (a filter's page, as the grid showed it). */
export function useAnnotateQueue(datasetId: number, filters: SampleFilters) {
  return useQuery({
    queryKey: datasetKeys.annotateQueue(datasetId, filters),
    queryFn: () => listSamples(datasetId, filters),
    placeholderData: keepPreviousData,
    staleTime: Infinity,
  });
}

/** Annotation reads for other images (the previous one's boxes to copy) through the same cache. */
export function useFetchAnnotations(datasetId: number) {
  const queryClient = useQueryClient();
  return useCallback(
    (sampleId: number) => queryClient.fetchQuery({ queryKey: datasetKeys.annotations(datasetId, sampleId), queryFn: () => getAnnotations(datasetId, sampleId), staleTime: 0 }),
    [queryClient, datasetId],
  );
}

/** Saves a sample's annotations; the answer (or a conflict's current state) goes into the cache, and the grid and statistics refresh. */
export function useSaveAnnotations(datasetId: number) {
  const queryClient = useQueryClient();
  const store = useCallback(
    (current: SampleAnnotations) => {
      queryClient.setQueryData(datasetKeys.annotations(datasetId, current.sample), current);
      void queryClient.invalidateQueries({ queryKey: datasetKeys.samples(datasetId) });
      void queryClient.invalidateQueries({ queryKey: datasetKeys.statistics(datasetId) });
      void queryClient.invalidateQueries({ queryKey: datasetKeys.labels(datasetId) });
    },
    [queryClient, datasetId],
  );
  const save = useCallback(
    async (sampleId: number, write: AnnotationsWrite) => {
      const saved = await putAnnotations(datasetId, sampleId, write);
      store(saved);
      return saved;
    },
    [datasetId, store],
  );
  return { save, store };
}
