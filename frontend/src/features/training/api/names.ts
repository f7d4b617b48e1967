import { translateDynamic } from '@/i18n';

/** A template's name in the UI's language ("图像分类"), the id itself for one the catalog lacks. */
export function templateName(template: string): string {
  return translateDynamic(`training:templates.${template}`, template);
}

/** A preset's name in the UI's language ("快速"); a preset the catalog lacks keeps its own name. */
export function presetName(preset: string | null | undefined): string {
  if (!preset) return '—';
  return translateDynamic(`training:form.presetTitles.${preset}`, preset);
}
