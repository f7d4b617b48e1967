import { Navigate, Route, Routes } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { RequireAuth } from '@/features/auth';
import { AppLayout } from './AppLayout';
import { JobRoute } from './routes/JobRoute';
import { JobsRoute } from './routes/JobsRoute';
import { LoginRoute } from './routes/LoginRoute';
import { ProjectRoute } from './routes/ProjectRoute';
import { TokensRoute } from './routes/TokensRoute';
import { WorkspaceRoute } from './routes/WorkspaceRoute';
import { WorkspacesRoute } from './routes/WorkspacesRoute';

export function AppRoutes() {
  return (
    <Routes>
      <Route path="/login" element={<LoginRoute />} />
      <Route
        element={
          <RequireAuth>
            <AppLayout />
          </RequireAuth>
        }
      >
        <Route index element={<Navigate to="/workspaces" replace />} />
        <Route path="/workspaces" element={<WorkspacesRoute />} />
        <Route path="/workspaces/:workspaceId" element={<WorkspaceRoute />} />
        <Route path="/projects/:projectId" element={<ProjectRoute />} />
        <Route path="/jobs" element={<JobsRoute />} />
        <Route path="/jobs/:jobId" element={<JobRoute />} />
        <Route path="/tokens" element={<TokensRoute />} />
      </Route>
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
