import { Stack } from '@mantine/core';

/** The caller's notebook server for one project (work in progress: h8). */
export function NotebooksPanel({ projectId }: { projectId: number }) {
  return <Stack data-testid="notebooks-panel" data-project={projectId} />;
}
