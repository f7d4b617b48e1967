import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { UploadProgress } from '@/api/client';
import { createCustomJob, customJobKeys, getCodeFile, listCodeArchives, uploadCodeArchive } from '../api/codeArchives';
import type { CustomJobCreateBody } from '../api/types';

export function useCodeArchives(projectId: number) {
  return useQuery({ queryKey: customJobKeys.list(projectId), queryFn: () => listCodeArchives(projectId), enabled: Number.isFinite(projectId) });
}

export function useCodeFile(archiveId: number | null, path: string | null) {
  return useQuery({
    queryKey: customJobKeys.file(archiveId ?? -1, path ?? ''),
    queryFn: () => getCodeFile(archiveId as number, path as string),
    enabled: archiveId !== null && path !== null,
    staleTime: Infinity, // an archive's files never change
  });
}

export function useUploadCodeArchive(projectId: number, onProgress?: (progress: UploadProgress) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ file, name, entryPoint }: { file: File; name?: string; entryPoint?: string }) =>
      uploadCodeArchive({ project: projectId, file, name, entryPoint }, onProgress),
    meta: { handlesOwnErrors: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: customJobKeys.list(projectId) }),
  });
}

export function useCreateCustomJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CustomJobCreateBody) => createCustomJob(body),
    meta: { handlesOwnErrors: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['jobs', 'list'] }),
  });
}
