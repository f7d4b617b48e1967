export { CompressButton } from './components/CompressButton';
export { CompressDialog } from './components/CompressDialog';
export { CompressionView } from './components/CompressionView';
export { CompressionLineage } from './components/CompressionLineage';
export { CompressionsList } from './components/CompressionsList';
export { compressionLineageOf } from './api/compressions';
export type { Compression, CompressionLineage as CompressionLineageData, CompressionReport } from './api/types';
