export { JobDetail } from './components/JobDetail';
export { JobsPanel } from './components/JobsPanel';
export { JobLogsPanel } from './components/JobLogsPanel';
export { progressMessage } from './api/progressMessage';
export { JobProgressBar } from './components/JobProgressBar';
export { useJobEvents } from './hooks/useJobs';
export type { Job, JobEvent } from './api/jobs';
