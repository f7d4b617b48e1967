export const compressionKeys = {
  all: ['compressions'] as const,
  detail: (id: number) => [...compressionKeys.all, 'detail', id] as const,
  list: (projectId: number) => [...compressionKeys.all, 'list', projectId] as const,
  targets: (workspaceId: number | null) => ['compression', 'target-profiles', workspaceId] as const,
  job: (id: number) => ['compression', 'job', id] as const,
};
