import { Alert, Skeleton, Stack } from '@mantine/core';
import { errorMessage } from '@/lib/notifications';
import { useCapturePolicy } from '../../hooks/useCapture';
import { CapturedList } from './CapturedList';
import { CapturePolicyForm } from './CapturePolicyForm';

/** The deployment's Capture tab: what it keeps of the requests it answers, and what it has kept. */
export function CapturePanel({ deploymentId, projectId, canEdit }: { deploymentId: number; projectId: number; canEdit: boolean }) {
  const policy = useCapturePolicy(deploymentId);
  return (
    <Stack data-testid="capture-panel">
      {policy.isPending && <Skeleton h={260} />}
      {policy.isError && <Alert color="red">{errorMessage(policy.error)}</Alert>}
      {policy.data && <CapturePolicyForm deploymentId={deploymentId} policy={policy.data} canEdit={canEdit} />}
      <CapturedList deploymentId={deploymentId} projectId={projectId} canEdit={canEdit} />
    </Stack>
  );
}
