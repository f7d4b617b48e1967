import type { components } from '@/api/schema';
import type { Study } from './studies';

// Kept free of runtime imports: the study view and list read a study's code through it.

export const CUSTOM_TEMPLATE = 'custom';

/** What a custom-code study (template "custom") runs. */
export type CustomCode = components['schemas']['CustomCode'];

/** The study's code, when it is a custom-code study. */
export function customCodeOf(study: Study): CustomCode | null {
  return study.template === CUSTOM_TEMPLATE && study.custom_code ? study.custom_code : null;
}
