export { SmartLabelingPanel } from './components/SmartLabelingPanel';
