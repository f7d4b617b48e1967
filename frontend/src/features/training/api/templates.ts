import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

export type Template = components['schemas']['Template'];
type ParamKind = 'int' | 'float' | 'bool' | 'choice';
type Scalar = string | number | boolean;

/**
 * A template parameter as the UI reads it. The schema types `params` as free-form objects, so
 * each one is read (and checked) here: name, type, title, help, default, minimum/maximum, choices.
 */
export type TemplateParam = {
  name: string;
  type: ParamKind;
  title: string;
  help: string;
  default: Scalar | null;
  minimum: number | null;
  maximum: number | null;
  log: boolean;
  choices: Scalar[];
};

export type TemplatePreset = { name: string; title: string; description: string; values: Record<string, Scalar> };

const KINDS = new Set<ParamKind>(['int', 'float', 'bool', 'choice']);

function isScalar(value: unknown): value is Scalar {
  return ['string', 'number', 'boolean'].includes(typeof value);
}

function text(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function readParams(template: Template): TemplateParam[] {
  return template.params.flatMap((raw) => {
    const name = text(raw.name);
    const type = text(raw.type) as ParamKind;
    if (!name || !KINDS.has(type)) return [];
    return [
      {
        name,
        type,
        title: text(raw.title, name),
        help: text(raw.help),
        default: isScalar(raw.default) ? raw.default : null,
        minimum: numberOrNull(raw.minimum),
        maximum: numberOrNull(raw.maximum),
        log: raw.log === true,
        choices: Array.isArray(raw.choices) ? raw.choices.filter(isScalar) : [],
      },
    ];
  });
}

export function readPresets(template: Template): TemplatePreset[] {
  return template.presets.flatMap((raw) => {
    const name = text(raw.name);
    if (!name) return [];
    const values = raw.values && typeof raw.values === 'object' ? (raw.values as Record<string, unknown>) : {};
    return [
      {
        name,
        title: text(raw.title, name),
        description: text(raw.description),
        values: Object.fromEntries(Object.entries(values).filter((entry): entry is [string, Scalar] => isScalar(entry[1]))),
      },
    ];
  });
}

export function listTemplates() {
  return unwrap(api.GET('/api/v1/templates/'));
}
