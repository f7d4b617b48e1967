/**
 * TanStack Query keys of the resources that more than one feature reads, defined once: every feature that
 * lists or shows one of them uses these keys, so they share one cache entry and an invalidation in one
 * feature reaches the others. A feature's own resources keep their keys in its api/keys.ts, which builds
 * on these. Keys nest: invalidating a prefix (`modelVersionKeys.all`, `datasetKeys.versions(id)`) reaches
 * every key under it.
 */

/** GET /templates/ (the training form and the study form). */
export const templateKeys = {
  all: ['templates'] as const,
};

/** GET /model-versions/... (training's versions, reports and comparison; deploy's version picker). */
export const modelVersionKeys = {
  all: ['model-versions'] as const,
  list: (projectId: number) => [...modelVersionKeys.all, 'list', { project: projectId }] as const,
  detail: (id: number) => [...modelVersionKeys.all, 'detail', id] as const,
  evaluation: (id: number) => [...modelVersionKeys.detail(id), 'evaluation'] as const,
  comparison: (a: number, b: number) => [...modelVersionKeys.all, 'compare', a, b] as const,
};

/** GET /datasets/... (the datasets pages; training reads a model version's dataset version). */
export const datasetKeys = {
  all: ['datasets'] as const,
  list: (projectId: number) => [...datasetKeys.all, 'list', { project: projectId }] as const,
  detail: (id: number) => [...datasetKeys.all, 'detail', id] as const,
  versions: (id: number) => [...datasetKeys.detail(id), 'versions'] as const,
  version: (datasetId: number, id: number) => [...datasetKeys.versions(datasetId), id] as const,
};
