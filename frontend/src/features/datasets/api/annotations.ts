import { ApiError, api, CLIENT_ERROR_MESSAGES, errorFromText, readCookie, unwrap } from '@/api/client';
import type { AnnotationStatus } from '../components/detection/boxDocument';

// The shapes of workers/contracts/annotations.py (API.md §2). TODO(h1's `make api-client`): derive
// these from components['schemas'] and call api.GET/PUT once the annotation routes are in schema.d.ts.

export interface BoxGeometry {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface AnnotationRecord {
  id?: number;
  kind: 'box';
  /** The label's name. */
  label: string;
  geometry: BoxGeometry;
  attributes?: Record<string, string | number | boolean>;
}

/** A sample's annotations; `revision` is its concurrency counter (a write names the one it read). */
export interface SampleAnnotations {
  sample: number;
  status: AnnotationStatus;
  revision: number;
  width: number;
  height: number;
  annotations: AnnotationRecord[];
}

export interface AnnotationsWrite {
  revision: number;
  status?: AnnotationStatus;
  annotations: Omit<AnnotationRecord, 'id'>[];
}

const path = (datasetId: number, sampleId: number) => `/api/v1/datasets/${datasetId}/samples/${sampleId}/annotations/`;

/** A JSON request with the client's conventions (cookies, CSRF header, failures thrown as ApiError). */
async function request<T>(method: 'GET' | 'PUT', url: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const token = method === 'GET' ? null : readCookie('csrftoken');
  if (token) headers['X-CSRFToken'] = token;
  let response: Response;
  try {
    response = await globalThis.fetch(new Request(`${window.location.origin}${url}`, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) }));
  } catch (error) {
    throw new ApiError({ status: 0, code: 'network_error', message: CLIENT_ERROR_MESSAGES.network_error, details: String(error) });
  }
  const text = await response.text();
  if (!response.ok) throw errorFromText(response.status, response.statusText, text);
  return JSON.parse(text) as T;
}

export function getAnnotations(datasetId: number, sampleId: number): Promise<SampleAnnotations> {
  return request('GET', path(datasetId, sampleId));
}

/** Replaces the sample's annotations if it is still at `write.revision` (else a 409 `annotation_conflict`). */
export function putAnnotations(datasetId: number, sampleId: number, write: AnnotationsWrite): Promise<SampleAnnotations> {
  return request('PUT', path(datasetId, sampleId), write);
}

/** The sample's current annotations from a 409 `annotation_conflict` answer, or null for any other error. */
export function annotationConflict(error: unknown): SampleAnnotations | null {
  if (!(error instanceof ApiError) || error.status !== 409 || error.code !== 'annotation_conflict') return null;
  const current = (error.details as { current?: SampleAnnotations } | null)?.current;
  return current && typeof current === 'object' ? current : null;
}

/** One sample (its image URL and name) for the labeler. */
export function getSample(datasetId: number, id: number) {
  return unwrap(api.GET('/api/v1/datasets/{dataset_id}/samples/{id}/', { params: { path: { dataset_id: datasetId, id } } }));
}
