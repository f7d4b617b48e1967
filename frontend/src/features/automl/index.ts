export { StudiesTable } from './components/StudiesTable';
export { StudyForm } from './components/StudyForm';
export { StudyView } from './components/StudyView';
