export { NotebooksPanel } from './components/NotebooksPanel';
