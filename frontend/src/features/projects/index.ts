export type { Project } from './api/projects';
export { CreateProjectButton } from './components/CreateProjectButton';
export { ProjectHeader } from './components/ProjectHeader';
export { ProjectSelect } from './components/ProjectSelect';
export { ProjectsTable } from './components/ProjectsTable';
export { useProject, useProjects } from './hooks/useProjects';
