export { CompareView } from './components/CompareView';
export { EvaluationReport } from './components/EvaluationReport';
export { ModelVersionsTable } from './components/ModelVersionsTable';
export { TrainingForm } from './components/TrainingForm';
export { TrainingMonitor } from './components/TrainingMonitor';
export { useModelVersion } from './hooks/useTraining';
export { presetName, templateName } from './api/names';
export { lineageOf } from './api/lineage';
export { ModelVersionLineage } from './components/ModelVersionLineage';
