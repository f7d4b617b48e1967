export { CreateDeploymentButton } from './components/CreateDeploymentButton';
export { DeployButtons } from './components/DeployButtons';
export { DeploymentDetail, DEPLOYMENT_TABS, type DeploymentTab } from './components/DeploymentDetail';
export { DeploymentsTable } from './components/DeploymentsTable';
export { PackagesPanel } from './components/PackagesPanel';
export { useDeployment } from './hooks/useDeploy';
