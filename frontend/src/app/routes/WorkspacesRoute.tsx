import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { PageHeader } from '@/components/PageHeader';
import { CreateWorkspaceButton, InvitationsPanel, WorkspacesTable } from '@/features/workspaces';

export function WorkspacesRoute() {
  const navigate = useNavigate();
  const { t } = useTranslation('workspaces');
  return (
    <>
      <PageHeader
        title={t('page.title')}
        description={t('page.description')}
        actions={<CreateWorkspaceButton onCreated={(workspace) => navigate(`/workspaces/${workspace.id}`)} />}
      />
      <InvitationsPanel />
      <WorkspacesTable />
    </>
  );
}
