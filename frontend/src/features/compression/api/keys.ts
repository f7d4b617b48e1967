export const compressionKeys = {
  all: ['compressions'] as const,
  detail: (id: number) => [...compressionKeys.all, 'detail', id] as const,
  ofParent: (parentId: number) => [...compressionKeys.all, 'list', { parent: parentId }] as const,
  targets: (workspaceId: number | null) => ['compression', 'target-profiles', workspaceId] as const,
  job: (id: number) => ['compression', 'job', id] as const,
};
