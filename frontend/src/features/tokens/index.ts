export { TokensPanel } from './components/TokensPanel';
