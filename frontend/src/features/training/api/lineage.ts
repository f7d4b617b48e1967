import type { CustomJobLineage } from '@/features/customJobs';
import type { ModelVersion } from './modelVersions';

/** A model version's lineage when custom code trained it; null for any other version. */
export function lineageOf(version: Pick<ModelVersion, 'source' | 'lineage'> | null | undefined): CustomJobLineage | null {
  const lineage = version?.lineage;
  return version?.source === 'custom' && lineage && lineage.kind === 'custom_job_lineage' ? lineage : null;
}
