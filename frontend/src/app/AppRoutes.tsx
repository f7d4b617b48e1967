import { Skeleton } from '@mantine/core';
import { lazy, Suspense, type ReactNode } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { RequireAuth } from '@/features/auth';
import { AppLayout } from './AppLayout';
import { useAnnotatorOnly } from './useAnnotatorOnly';
import { JobsRoute } from './routes/JobsRoute';
import { LoginRoute } from './routes/LoginRoute';
import { TokensRoute } from './routes/TokensRoute';
import { UsersRoute } from './routes/UsersRoute';
import { WorkspaceRoute } from './routes/WorkspaceRoute';
import { WorkspacesRoute } from './routes/WorkspacesRoute';

// Pages with the labeler, the training curves and the charts load when first visited.
const ProjectRoute = lazy(() => import('./routes/ProjectRoute').then((module) => ({ default: module.ProjectRoute })));
const JobRoute = lazy(() => import('./routes/JobRoute').then((module) => ({ default: module.JobRoute })));
const AnnotateRoute = lazy(() => import('./routes/AnnotateRoute').then((module) => ({ default: module.AnnotateRoute })));
const DatasetRoute = lazy(() => import('./routes/DatasetRoute').then((module) => ({ default: module.DatasetRoute })));
const ModelVersionRoute = lazy(() => import('./routes/ModelVersionRoute').then((module) => ({ default: module.ModelVersionRoute })));
const CompareRoute = lazy(() => import('./routes/CompareRoute').then((module) => ({ default: module.CompareRoute })));
const StudiesRoute = lazy(() => import('./routes/StudiesRoute').then((module) => ({ default: module.StudiesRoute })));
const NewStudyRoute = lazy(() => import('./routes/NewStudyRoute').then((module) => ({ default: module.NewStudyRoute })));
const StudyRoute = lazy(() => import('./routes/StudyRoute').then((module) => ({ default: module.StudyRoute })));
const LabelingQueueRoute = lazy(() => import('./routes/LabelingQueueRoute').then((module) => ({ default: module.LabelingQueueRoute })));
const AssignmentRoute = lazy(() => import('./routes/AssignmentRoute').then((module) => ({ default: module.AssignmentRoute })));
const LabelingTaskRoute = lazy(() => import('./routes/LabelingTaskRoute').then((module) => ({ default: module.LabelingTaskRoute })));
const TargetsRoute = lazy(() => import('./routes/TargetsRoute').then((module) => ({ default: module.TargetsRoute })));
const DeploymentRoute = lazy(() => import('./routes/DeploymentRoute').then((module) => ({ default: module.DeploymentRoute })));
const CompressionRoute = lazy(() => import('./routes/CompressionRoute').then((module) => ({ default: module.CompressionRoute })));

/** Home: the workspaces, or the labeling queue for someone who is only an annotator. */
function HomeRedirect() {
  const { annotatorOnly, isPending } = useAnnotatorOnly();
  if (isPending) return <Skeleton h={240} />;
  return <Navigate to={annotatorOnly ? '/labeling' : '/workspaces'} replace />;
}

function Lazy({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Skeleton h={240} />}>{children}</Suspense>;
}

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
        <Route index element={<HomeRedirect />} />
        <Route path="/workspaces" element={<WorkspacesRoute />} />
        <Route path="/workspaces/:workspaceId" element={<WorkspaceRoute />} />
        <Route path="/projects/:projectId/:tab?" element={<Lazy><ProjectRoute /></Lazy>} />
        <Route path="/datasets/:datasetId/annotate/:sampleId" element={<Lazy><AnnotateRoute /></Lazy>} />
        <Route path="/datasets/:datasetId/:tab?" element={<Lazy><DatasetRoute /></Lazy>} />
        <Route path="/model-versions/compare" element={<Lazy><CompareRoute /></Lazy>} />
        <Route path="/model-versions/:modelVersionId" element={<Lazy><ModelVersionRoute /></Lazy>} />
        <Route path="/compressions/:compressionId" element={<Lazy><CompressionRoute /></Lazy>} />
        <Route path="/deployments/:deploymentId/:tab?" element={<Lazy><DeploymentRoute /></Lazy>} />
        <Route path="/studies" element={<Lazy><StudiesRoute /></Lazy>} />
        <Route path="/studies/new" element={<Lazy><NewStudyRoute /></Lazy>} />
        <Route path="/studies/:studyId" element={<Lazy><StudyRoute /></Lazy>} />
        <Route path="/labeling" element={<Lazy><LabelingQueueRoute /></Lazy>} />
        <Route path="/labeling/assignments/:assignmentId" element={<Lazy><AssignmentRoute /></Lazy>} />
        <Route path="/labeling-tasks/:taskId/:tab?" element={<Lazy><LabelingTaskRoute /></Lazy>} />
        <Route path="/jobs" element={<JobsRoute />} />
        <Route path="/jobs/:jobId" element={<Lazy><JobRoute /></Lazy>} />
        <Route path="/targets" element={<Lazy><TargetsRoute /></Lazy>} />
        <Route path="/tokens" element={<TokensRoute />} />
        <Route path="/users" element={<UsersRoute />} />
      </Route>
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
