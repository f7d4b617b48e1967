export { CreateDeploymentButton } from './components/CreateDeploymentButton';
export { DeployButtons } from './components/DeployButtons';
export { DeploymentDetail } from './components/DeploymentDetail';
export { DEPLOYMENT_TABS, type DeploymentTab } from './components/deploymentTabs';
export { DeploymentsTable } from './components/DeploymentsTable';
export { BatchTabLabel, DeploymentBatchPanel, ModelVersionBatchPanel, ProjectBatchPanel } from './components/batch';
export { PackagesPanel } from './components/PackagesPanel';
export { ModelVersionTryPanel } from './components/TryItPanel';
export { useDeployment } from './hooks/useDeploy';
