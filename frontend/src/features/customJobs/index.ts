export { CodePanel } from './components/CodePanel';
export { RunCustomJobForm } from './components/RunCustomJobForm';
export { CustomJobMonitor } from './components/CustomJobMonitor';
export { RunEnvironmentView } from './components/RunEnvironmentView';
export type { CodeArchive, CustomJobLineage, CustomJobResult, RunEnvironment } from './api/types';
export { isCustomJobResult } from './api/types';
