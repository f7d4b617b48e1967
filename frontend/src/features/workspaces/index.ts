export type { Workspace } from './api/workspaces';
export { CreateWorkspaceButton } from './components/CreateWorkspaceButton';
export { InvitationsPanel } from './components/InvitationsPanel';
export { MembersPanel } from './components/MembersPanel';
export { RoleBadge } from './components/RoleBadge';
export { WorkspaceHeader } from './components/WorkspaceHeader';
export { WorkspaceSelect } from './components/WorkspaceSelect';
export { WorkspacesTable } from './components/WorkspacesTable';
export { useWorkspace, useWorkspaces } from './hooks/useWorkspaces';
