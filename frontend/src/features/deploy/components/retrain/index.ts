export { RetrainButton } from './RetrainButton';
export { WarmStartPanel } from './WarmStartPanel';
