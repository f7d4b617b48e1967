export { BatchPredictButton } from './BatchPredictDialog';
export { BatchTabLabel, DeploymentBatchPanel, ModelVersionBatchPanel, ProjectBatchPanel } from './BatchPanels';
export { BatchRunsPanel } from './BatchRunsPanel';
