import { useNavigate } from 'react-router';
import { PageHeader } from '@/components/PageHeader';
import { CreateWorkspaceButton, WorkspacesTable } from '@/features/workspaces';

export function WorkspacesRoute() {
  const navigate = useNavigate();
  return (
    <>
      <PageHeader
        title="Workspaces"
        description="Teams share datasets, projects and jobs inside a workspace."
        actions={<CreateWorkspaceButton onCreated={(workspace) => navigate(`/workspaces/${workspace.id}`)} />}
      />
      <WorkspacesTable />
    </>
  );
}
