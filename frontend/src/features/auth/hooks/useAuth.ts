import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { applyLanguage, i18n, isLanguage, type Language } from '@/i18n';
import { notifyError } from '@/lib/notifications';
import { authKeys, fetchCsrf, fetchMe, login, logout, updateMe } from '../api/auth';

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

/** Follows the signed-in user's saved language (when they chose one) once it is known. */
export function useUserLanguage() {
  const { data: user } = useMe();
  const saved = user?.language;
  useEffect(() => {
    if (isLanguage(saved)) applyLanguage(saved);
  }, [saved]);
}

/** Switches the UI now and, when signed in, saves the choice to the user's account. */
export function useSetLanguage() {
  const queryClient = useQueryClient();
  const { data: user } = useMe();
  const mutation = useMutation({
    mutationFn: updateMe,
    meta: { handlesOwnErrors: true },
    onSuccess: (updated) => queryClient.setQueryData(authKeys.me, updated),
    onError: (error) => notifyError(error, i18n.t('common:language.saveFailed')),
  });
  return (language: Language) => {
    applyLanguage(language);
    if (user) mutation.mutate({ language });
  };
}
