import { useMe } from '@/features/auth';
import { useWorkspaces } from '@/features/workspaces';

/**
 * True for someone who is an annotator in every workspace they belong to (and not a platform
 * administrator): they can open nothing but their labeling queue, so that is all the app shows them.
 */
export function useAnnotatorOnly(): { annotatorOnly: boolean; isPending: boolean } {
  const me = useMe();
  const workspaces = useWorkspaces();
  const list = workspaces.data?.results ?? [];
  return {
    annotatorOnly: !me.data?.is_staff && list.length > 0 && list.every((workspace) => workspace.role === 'annotator'),
    isPending: me.isPending || workspaces.isPending,
  };
}
