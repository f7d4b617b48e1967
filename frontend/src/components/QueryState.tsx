import { Alert, Skeleton } from '@mantine/core';
import { ApiError } from '@/api/client';
import { errorMessage } from '@/lib/notifications';
import { NotFound } from './NotFound';

/** Loading skeleton, a 404 page, or the error message of a query that has no data yet. */
export function QueryState({ isPending, error, what }: { isPending: boolean; error: unknown; what: string }) {
  if (isPending) return <Skeleton h={200} />;
  if (error instanceof ApiError && error.status === 404) return <NotFound what={what} />;
  return <Alert color="red">{errorMessage(error)}</Alert>;
}
