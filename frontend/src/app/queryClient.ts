import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from '@/api/client';
import { authKeys } from '@/features/auth';
import { notifyError } from '@/lib/notifications';

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: {
      /** The mutation shows its own error (e.g. inside a form); skip the global notification. */
      handlesOwnErrors?: boolean;
    };
  }
}

/**
 * One client for the app. A 401 anywhere clears the session marker, which sends RequireAuth to /login;
 * any other failed mutation becomes a notification unless the form shows it.
 */
export function createQueryClient(): QueryClient {
  const queryClient: QueryClient = new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        retry: (failureCount, error) =>
          !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failureCount < 2,
        refetchOnWindowFocus: true,
      },
    },
    queryCache: new QueryCache({
      onError: (error) => {
        if (error instanceof ApiError && error.isUnauthenticated) {
          queryClient.setQueryData(authKeys.me, null);
        }
      },
    }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _context, mutation) => {
        if (error instanceof ApiError && error.isUnauthenticated) {
          queryClient.setQueryData(authKeys.me, null);
          return;
        }
        if (!mutation.meta?.handlesOwnErrors) notifyError(error);
      },
    }),
  });
  return queryClient;
}
