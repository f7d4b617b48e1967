import { Alert, Skeleton } from '@mantine/core';
import { ApiError } from '@/api/client';
import { errorMessage } from '@/lib/notifications';
import { NotFound, type NotFoundKind } from './NotFound';

/**
 * Loading skeleton, a 404 page, or the error message of a query that has no data yet. The 404 names
 * `kind` (translated by NotFound) or `what` (text already translated).
 */
export function QueryState({ isPending, error, kind, what }: { isPending: boolean; error: unknown; kind?: NotFoundKind; what?: string }) {
  if (isPending) return <Skeleton h={200} />;
  if (error instanceof ApiError && error.status === 404) return <NotFound kind={kind} what={what} />;
  return (
    <Alert color="red" data-testid="query-error">
      {errorMessage(error)}
    </Alert>
  );
}
