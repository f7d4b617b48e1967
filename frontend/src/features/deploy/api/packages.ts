import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type DeployPackage = components['schemas']['Package'];
export type PackageKind = 'server' | 'device';


export function listPackages(filters: { project?: number; model_version?: number }) {
  return unwrap(api.GET('/api/v1/packages/', { params: { query: { ...filters, page_size: 100 } } }));
}

export function createPackage({ modelVersion, kind }: { modelVersion: number; kind: PackageKind }) {
  return unwrap(api.POST('/api/v1/packages/', { body: { model_version: modelVersion, kind } }));
}

export function deletePackage(id: number) {
  return unwrap(api.DELETE('/api/v1/packages/{id}/', { params: { path: { id } } }));
}

export function getPackageJob(jobId: number) {
  return unwrap(api.GET('/api/v1/jobs/{id}/', { params: { path: { id: jobId } } }));
}

export function packageDownloadUrl(pkg: Pick<DeployPackage, 'id' | 'download_url'>): string {
  return pkg.download_url || `/api/v1/packages/${pkg.id}/download/`;
}

export function isBuilding(status: string | null | undefined): boolean {
  return status === 'queued' || status === 'running';
}

export function formatBytes(bytes: number | null | undefined): string {
  if (typeof bytes !== 'number' || !Number.isFinite(bytes)) return '—';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}

/** A job's `progress` ({fraction?, step?, total?, message?}) as a percent and a message. */
export function jobProgress(progress: unknown): { percent: number | null; message: string } {
  const record = progress && typeof progress === 'object' ? (progress as Record<string, unknown>) : {};
  const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  let fraction = num(record.fraction);
  const step = num(record.step);
  const total = num(record.total);
  if (fraction === null && step !== null && total) fraction = step / total;
  return {
    percent: fraction === null ? null : Math.round(Math.min(1, Math.max(0, fraction)) * 100),
    message: typeof record.message === 'string' ? record.message : '',
  };
}

export type CompressionReport = {
  fp32: { size_bytes: number | null; accuracy: number | null; map50: number | null };
  int8: { size_bytes: number | null; accuracy: number | null; map50: number | null };
  agreement: number | null;
  samples: number | null;
  calibrationImages: number | null;
  /** A detector's report: mAP@.5 of each model, the drop (fp32 minus int8) and how many of fp32's boxes int8 finds too. */
  detection: { map50Drop: number | null; boxAgreement: number | null } | null;
};

type PackagedModelQuality = components['schemas']['PackagedModelQuality'];

/** The device SDK's compression report (the report's `compression`); null for a server package or one not built yet. */
export function readCompressionReport(report: DeployPackage['report']): CompressionReport | null {
  if (report?.kind !== 'device') return null;
  const { compression } = report;
  const side = (model: PackagedModelQuality | null) => ({ size_bytes: model?.bytes ?? null, accuracy: model?.accuracy ?? null, map50: model?.map50 ?? null });
  return {
    fp32: side(compression.fp32),
    int8: side(compression.int8),
    agreement: compression.task === 'detection' ? (compression.box_agreement ?? null) : (compression.top1_agreement ?? null),
    samples: compression.test_images ?? null,
    calibrationImages: compression.quantization?.calibration_images ?? null,
    detection: compression.task === 'detection' ? { map50Drop: compression.map50_drop ?? null, boxAgreement: compression.box_agreement ?? null } : null,
  };
}
