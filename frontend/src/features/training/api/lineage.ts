import type { CustomJobLineage } from '@/features/customJobs';

/** A model version's lineage when custom code trained it; null for any other version. */
export function lineageOf(version: { source?: string; lineage?: unknown } | null | undefined): CustomJobLineage | null {
  // TODO(lead): generated type — ModelVersion.lineage (CustomJobLineage | null)
  const lineage = version?.lineage as CustomJobLineage | null | undefined;
  return version?.source === 'custom' && lineage && lineage.kind === 'custom_job_lineage' ? lineage : null;
}
