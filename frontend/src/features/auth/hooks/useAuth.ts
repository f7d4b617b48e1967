import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { authKeys, fetchCsrf, fetchMe, login, logout } from '../api/auth';

export function useCsrfCookie() {
  return useQuery({ queryKey: authKeys.csrf, queryFn: fetchCsrf, staleTime: Infinity, retry: 1 });
}

export function useMe() {
  return useQuery({ queryKey: authKeys.me, queryFn: fetchMe, staleTime: 60_000, retry: false });
}

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: login,
    meta: { handlesOwnErrors: true },
    onSuccess: (user) => {
      // A new session: drop whatever a previous user had cached.
      queryClient.clear();
      queryClient.setQueryData(authKeys.me, user);
    },
  });
}

export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: logout,
    onSettled: () => {
      queryClient.clear();
      queryClient.setQueryData(authKeys.me, null);
    },
  });
}
