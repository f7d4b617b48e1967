export { JobDetail } from './components/JobDetail';
export { JobsPanel } from './components/JobsPanel';
export { progressMessage } from './api/progressMessage';
export { JobProgressBar } from './components/JobProgressBar';
