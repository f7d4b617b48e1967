import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';
import { deployKeys } from './keys';

/** A deployment's capture policy (off by default) with what it holds now. */
export type CapturePolicy = components['schemas']['CapturePolicy'];
export type CapturePolicyChange = components['schemas']['CapturePolicyUpdateRequest'];
/** One captured instance: its input (content_url, text or row), the served answer, the shadow's. */
export type CapturedRequest = components['schemas']['CapturedRequest'];
export type CaptureReason = CapturedRequest['reason'];
export type CapturedAnswer = CapturedRequest['answer'];
export type CaptureSendResult = components['schemas']['CaptureSendResult'];
export type CaptureSkipReason = CaptureSendResult['skipped'][number]['reason'];

export const CAPTURE_REASONS = ['low_confidence', 'disagreement', 'label', 'sampled'] as const satisfies readonly CaptureReason[];
export const CAPTURES_PAGE_SIZE = 24;

export type CaptureFilters = {
  reason?: CaptureReason;
  label?: string;
  /** true: only those sent to a dataset; false: only those not sent yet. */
  sent?: boolean;
  modelVersion?: number;
  page?: number;
};

export const captureKeys = {
  all: (deploymentId: number) => [...deployKeys.deployments, 'detail', deploymentId, 'capture'] as const,
  policy: (deploymentId: number) => [...captureKeys.all(deploymentId), 'policy'] as const,
  list: (deploymentId: number, filters: CaptureFilters) => [...captureKeys.all(deploymentId), 'list', filters] as const,
};

export function getCapturePolicy(deploymentId: number) {
  return unwrap(api.GET('/api/v1/deployments/{id}/capture/', { params: { path: { id: deploymentId } } }));
}

export function updateCapturePolicy({ deploymentId, change }: { deploymentId: number; change: CapturePolicyChange }) {
  return unwrap(api.PUT('/api/v1/deployments/{id}/capture/', { params: { path: { id: deploymentId } }, body: change }));
}

export function listCaptures(deploymentId: number, filters: CaptureFilters) {
  return unwrap(
    api.GET('/api/v1/deployments/{deployment_id}/captures/', {
      params: {
        path: { deployment_id: deploymentId },
        query: {
          reason: filters.reason,
          label: filters.label || undefined,
          sent: filters.sent,
          model_version: filters.modelVersion,
          page: filters.page ?? 1,
          page_size: CAPTURES_PAGE_SIZE,
        },
      },
    }),
  );
}

export function deleteCaptures({ deploymentId, ids, all }: { deploymentId: number; ids?: number[]; all?: boolean }) {
  return unwrap(api.POST('/api/v1/deployments/{deployment_id}/captures/delete/', { params: { path: { deployment_id: deploymentId } }, body: all ? { all: true } : { ids, all: false } }));
}

export function sendCaptures({ deploymentId, dataset, ids }: { deploymentId: number; dataset: number; ids: number[] }) {
  return unwrap(api.POST('/api/v1/deployments/{deployment_id}/captures/send/', { params: { path: { deployment_id: deploymentId } }, body: { dataset, ids } }));
}

/** The served answer in a line: "七 0.41", "3.25", or a detection's box count. */
export function answerSummary(answer: CapturedAnswer | null | undefined): { name: string; score: number | null } | null {
  if (!answer) return null;
  if (answer.value !== undefined && answer.value !== null) return { name: String(Number(answer.value.toPrecision(4))), score: null };
  if (answer.label !== undefined && answer.label !== null) return { name: answer.label, score: answer.score ?? null };
  if (answer.boxes) return { name: `${answer.boxes.length} □`, score: answer.score ?? null };
  return null;
}

/** The share of the cap in use, 0-100 (the cap is never 0: the server refuses it). */
export function capUsePercent(policy: Pick<CapturePolicy, 'stored_bytes' | 'max_bytes'>): number {
  if (!policy.max_bytes) return 0;
  return Math.min(100, (policy.stored_bytes / policy.max_bytes) * 100);
}
