import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';
import { datasetKeys } from './keys';

export type QualityReportRun = components['schemas']['DatasetQualityReport'];
export type QualityReportSummary = components['schemas']['QualityReportSummary'];
export type QualityReport = components['schemas']['QualityReport'];
export type Finding = components['schemas']['Finding'];
export type FindingCode = components['schemas']['FindingCodeEnum'];
export type Distribution = components['schemas']['Distribution'];
export type QualityReportCreateBody = components['schemas']['QualityReportCreateRequest'];

export const qualityKeys = {
  all: (datasetId: number) => [...datasetKeys.detail(datasetId), 'quality'] as const,
  one: (datasetId: number, reportId: number) => [...qualityKeys.all(datasetId), reportId] as const,
};

export async function listQualityReports(datasetId: number): Promise<QualityReportSummary[]> {
  const data = await unwrap(
    api.GET('/api/v1/datasets/{dataset_id}/quality-reports/', { params: { path: { dataset_id: datasetId }, query: { page_size: 50 } } }),
  );
  return data.results;
}

export function getQualityReport(datasetId: number, reportId: number): Promise<QualityReportRun> {
  return unwrap(api.GET('/api/v1/datasets/{dataset_id}/quality-reports/{id}/', { params: { path: { dataset_id: datasetId, id: reportId } } }));
}

export function createQualityReport(datasetId: number, body: QualityReportCreateBody): Promise<QualityReportRun> {
  return unwrap(api.POST('/api/v1/datasets/{dataset_id}/quality-reports/', { params: { path: { dataset_id: datasetId } }, body }));
}

export function isQualityReportActive(report: { status: string }): boolean {
  return report.status === 'queued' || report.status === 'running';
}
