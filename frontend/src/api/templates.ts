import { api, unwrap } from './client';
import type { components } from './schema';

/**
 * Task templates (GET /templates/), typed by the schema generated from the compute plane's contract
 * (workers/contracts/templates.py): the training form and the study form both read them.
 */
export type Template = components['schemas']['TemplateDescription'];
export type TemplateParam = components['schemas']['ParamDescription'];
export type TemplatePreset = components['schemas']['PresetDescription'];
export type SearchDimension = components['schemas']['SearchDimension'];
/** A parameter's value: a number, a string or a boolean. */
export type ParamValue = TemplatePreset['values'][string];

export function listTemplates() {
  return unwrap(api.GET('/api/v1/templates/'));
}
