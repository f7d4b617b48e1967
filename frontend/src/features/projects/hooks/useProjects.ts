import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createProject, getProject, listProjects, projectKeys } from '../api/projects';

export function useProjects(workspaceId: number | null) {
  return useQuery({
    queryKey: projectKeys.list(workspaceId ?? -1),
    queryFn: () => listProjects(workspaceId as number),
    enabled: workspaceId !== null && Number.isFinite(workspaceId),
  });
}

export function useProject(id: number) {
  return useQuery({ queryKey: projectKeys.detail(id), queryFn: () => getProject(id), enabled: Number.isFinite(id) });
}

export function useCreateProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createProject,
    meta: { handlesOwnErrors: true },
    onSuccess: (project) => {
      queryClient.setQueryData(projectKeys.detail(project.id), project);
      return queryClient.invalidateQueries({ queryKey: projectKeys.list(project.workspace) });
    },
  });
}
