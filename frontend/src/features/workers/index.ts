export { WorkersIndicator } from './components/WorkersIndicator';
