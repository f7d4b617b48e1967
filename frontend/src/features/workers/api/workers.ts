import { api, unwrap } from '@/api/client';
import type { paths } from '@/api/schema';

export type Worker = paths['/api/v1/workers/']['get']['responses'][200]['content']['application/json'][number];

export const workerKeys = { list: ['workers'] as const };

export function listWorkers() {
  return unwrap(api.GET('/api/v1/workers/'));
}
