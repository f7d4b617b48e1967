import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type DeploymentKey = components['schemas']['DeploymentKey'];
export type CreatedDeploymentKey = components['schemas']['DeploymentKeyCreated'];
export type DeploymentKeyBody = components['schemas']['DeploymentKeyCreateRequest'];

export function listDeploymentKeys(deploymentId: number) {
  return unwrap(api.GET('/api/v1/deployments/{deployment_id}/keys/', { params: { path: { deployment_id: deploymentId } } }));
}

export function createDeploymentKey({ deploymentId, body }: { deploymentId: number; body: DeploymentKeyBody }) {
  return unwrap(api.POST('/api/v1/deployments/{deployment_id}/keys/', { params: { path: { deployment_id: deploymentId } }, body }));
}

export function revokeDeploymentKey({ deploymentId, keyId }: { deploymentId: number; keyId: number }) {
  return unwrap(api.DELETE('/api/v1/deployments/{deployment_id}/keys/{id}/', { params: { path: { deployment_id: deploymentId, id: keyId } } }));
}

/** The ISO time `days` after `now`; null for no expiry. */
export function expiryInDays(days: number | null, now: Date = new Date()): string | null {
  if (days === null || !Number.isFinite(days)) return null;
  return new Date(now.getTime() + days * 24 * 3600 * 1000).toISOString();
}

/** active / revoked / expired, from the server's `status` when it sends one, else from the dates. */
export function keyStatus(key: Pick<DeploymentKey, 'expires_at'> & { status?: string; revoked_at?: string | null }, now: Date = new Date()): string {
  if (key.status) return key.status;
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && new Date(key.expires_at) <= now) return 'expired';
  return 'active';
}
