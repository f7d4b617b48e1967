import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createUser, listUsers, resetPassword, runUserAction, userKeys, type UserAction } from '../api/users';

export function useUsers(enabled = true) {
  return useQuery({ queryKey: userKeys.list, queryFn: listUsers, enabled });
}

export function useCreateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createUser,
    meta: { handlesOwnErrors: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKeys.list }),
  });
}

export function useUserAction() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: number; action: UserAction }) => runUserAction(id, action),
    onSettled: () => queryClient.invalidateQueries({ queryKey: userKeys.list }),
  });
}

export function useResetPassword() {
  return useMutation({
    mutationFn: ({ id, password }: { id: number; password?: string }) => resetPassword(id, password),
    meta: { handlesOwnErrors: true },
  });
}
