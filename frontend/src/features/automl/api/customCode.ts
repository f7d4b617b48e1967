import type { Study } from './studies';

// Kept free of runtime imports: the study view and list read a study's code through it.

export const CUSTOM_TEMPLATE = 'custom';

// TODO(lead): generated type — components['schemas']['CustomCode'] (Study.custom_code).
/** What a custom-code study (template "custom") runs. */
export type CustomCode = {
  code_archive: number;
  code_name: string;
  code_sha256: string;
  code_kind: string;
  entry_point: string;
  args: string[];
  requirements: string;
  requirements_hash: string;
  limits: { wall_time_s: number; memory_mb: number; cpus: number };
  network: boolean;
};

/** The study's code, when it is a custom-code study. */
export function customCodeOf(study: Study): CustomCode | null {
  // TODO(lead): generated type — Study.custom_code
  const code = (study as Study & { custom_code?: CustomCode | null }).custom_code;
  return study.template === CUSTOM_TEMPLATE && code ? code : null;
}
