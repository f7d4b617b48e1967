import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { PageHeader } from '@/components/PageHeader';
import { TargetProfilesPanel } from '@/features/targets';

/** /targets?workspace=<id>: the deployment target profiles (builtins and the workspace's own). */
export function TargetsRoute() {
  const { t } = useTranslation('targets');
  const [params] = useSearchParams();
  const workspace = Number(params.get('workspace'));
  return (
    <>
      <PageHeader title={t('page.title')} />
      <TargetProfilesPanel initialWorkspace={Number.isInteger(workspace) && workspace > 0 ? workspace : undefined} />
    </>
  );
}
