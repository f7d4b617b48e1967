import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type Deployment = components['schemas']['Deployment'];
export type DeploymentHistoryEntry = Deployment['history'][number];
export type DeploymentCreateBody = components['schemas']['DeploymentCreateRequest'];

export function listDeployments(projectId: number) {
  return unwrap(api.GET('/api/v1/deployments/', { params: { query: { project: projectId, page_size: 100 } } }));
}

export function getDeployment(id: number) {
  return unwrap(api.GET('/api/v1/deployments/{id}/', { params: { path: { id } } }));
}

export function createDeployment(body: DeploymentCreateBody) {
  return unwrap(api.POST('/api/v1/deployments/', { body }));
}

export function switchDeployment({ id, modelVersion }: { id: number; modelVersion: number }) {
  return unwrap(api.POST('/api/v1/deployments/{id}/switch/', { params: { path: { id } }, body: { model_version: modelVersion } }));
}

export function rollbackDeployment(id: number) {
  return unwrap(api.POST('/api/v1/deployments/{id}/rollback/', { params: { path: { id } } }));
}

export function stopDeployment(id: number) {
  return unwrap(api.POST('/api/v1/deployments/{id}/stop/', { params: { path: { id } } }));
}

export function startDeployment(id: number) {
  return unwrap(api.POST('/api/v1/deployments/{id}/start/', { params: { path: { id } } }));
}

export function deleteDeployment(id: number) {
  return unwrap(api.DELETE('/api/v1/deployments/{id}/', { params: { path: { id } } }));
}

/** The project's model versions, to pick one to switch to (the same records the Models tab lists). */
export function listProjectModelVersions(projectId: number) {
  return unwrap(api.GET('/api/v1/model-versions/', { params: { query: { project: projectId, page_size: 100 } } }));
}

/** A model version (its preprocessing spec tells a table model's columns). */
export function getModelVersion(id: number) {
  return unwrap(api.GET('/api/v1/model-versions/{id}/', { params: { path: { id } } }));
}

/** The prediction endpoint as an absolute URL (the server may answer a path). */
export function absolutePredictUrl(deployment: Pick<Deployment, 'id' | 'predict_url'>, origin: string = window.location.origin): string {
  return new URL(deployment.predict_url || `/api/v1/deployments/${deployment.id}/predict/`, origin).toString();
}
