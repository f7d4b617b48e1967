import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type DeployPackage = components['schemas']['Package'];
export type PackageKind = 'server' | 'device';

export const PACKAGE_KINDS: Record<PackageKind, { title: string; description: string }> = {
  server: {
    title: 'On-prem server package',
    description: 'A zip with the model, a standalone HTTP server (same API as the hosted one), a Dockerfile and test vectors.',
  },
  device: {
    title: 'Device SDK',
    description: 'fp32 and int8 ONNX models with Python, JavaScript (browser and Node) samples and test vectors.',
  },
};

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
  fp32: { size_bytes: number | null; accuracy: number | null };
  int8: { size_bytes: number | null; accuracy: number | null };
  agreement: number | null;
  samples: number | null;
  calibrationImages: number | null;
};

/**
 * Reads the device SDK's compression report. The builder's report is a free-form dict; this accepts
 * the builder's ({compression: {fp32: {bytes, accuracy}, int8: {...}, top1_agreement, test_images,
 * quantization: {calibration_images}}}) and flat keys such as fp32_size_bytes, and answers null
 * when there is none.
 */
export function readCompressionReport(report: unknown): CompressionReport | null {
  if (!report || typeof report !== 'object') return null;
  const root = report as Record<string, unknown>;
  const source = (root.compression && typeof root.compression === 'object' ? root.compression : root) as Record<string, unknown>;
  const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  const side = (name: 'fp32' | 'int8') => {
    const nested = (source[name] && typeof source[name] === 'object' ? source[name] : {}) as Record<string, unknown>;
    return {
      size_bytes: num(nested.bytes) ?? num(nested.size_bytes) ?? num(nested.size) ?? num(source[`${name}_size_bytes`]) ?? num(source[`${name}_size`]),
      accuracy: num(nested.accuracy) ?? num(nested.test_accuracy) ?? num(source[`${name}_accuracy`]),
    };
  };
  const fp32 = side('fp32');
  const int8 = side('int8');
  const agreement = num(source.top1_agreement) ?? num(source.agreement) ?? num(source.top_1_agreement);
  const samples = num(source.test_images) ?? num(source.samples) ?? num(source.test_samples);
  const quantization = (source.quantization && typeof source.quantization === 'object' ? source.quantization : {}) as Record<string, unknown>;
  const calibrationImages = num(quantization.calibration_images);
  if (fp32.size_bytes === null && int8.size_bytes === null && agreement === null) return null;
  return { fp32, int8, agreement, samples, calibrationImages };
}
