import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createWorkspace, getWorkspace, listWorkspaces, workspaceKeys } from '../api/workspaces';

export function useWorkspaces() {
  return useQuery({ queryKey: workspaceKeys.list(), queryFn: listWorkspaces });
}

export function useWorkspace(id: number) {
  return useQuery({ queryKey: workspaceKeys.detail(id), queryFn: () => getWorkspace(id), enabled: Number.isFinite(id) });
}

export function useCreateWorkspace() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createWorkspace,
    meta: { handlesOwnErrors: true },
    onSuccess: (workspace) => {
      queryClient.setQueryData(workspaceKeys.detail(workspace.id), workspace);
      return queryClient.invalidateQueries({ queryKey: workspaceKeys.list() });
    },
  });
}
