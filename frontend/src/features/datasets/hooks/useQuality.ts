import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createQualityReport, getQualityReport, isQualityReportActive, listQualityReports, qualityKeys, type QualityReportCreateBody } from '../api/quality';

const POLL_MS = 1000;

/** The dataset's quality reports, newest first; polled while one of them runs. */
export function useQualityReports(datasetId: number) {
  return useQuery({
    queryKey: qualityKeys.all(datasetId),
    queryFn: () => listQualityReports(datasetId),
    refetchInterval: (query) => (query.state.data?.some(isQualityReportActive) ? POLL_MS : false),
  });
}

/** One report with its findings, polled while its job runs. */
export function useQualityReport(datasetId: number, reportId: number | null) {
  return useQuery({
    queryKey: qualityKeys.one(datasetId, reportId ?? -1),
    queryFn: () => getQualityReport(datasetId, reportId as number),
    enabled: reportId !== null,
    refetchInterval: (query) => (query.state.data && isQualityReportActive(query.state.data) ? POLL_MS : false),
  });
}

export function useCreateQualityReport(datasetId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: QualityReportCreateBody) => createQualityReport(datasetId, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: qualityKeys.all(datasetId) }),
  });
}
