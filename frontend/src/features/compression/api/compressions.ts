import { api, unwrap } from '@/api/client';
import { i18n } from '@/i18n';
import type {
  BrowserLatency,
  BrowserLatencyBody,
  CompressBody,
  Compression,
  CompressionLineage,
  CompressionRecipe,
  CompressionReport,
  TargetProfileRow,
} from './types';

/** The server's presets: int8; half the FLOPs pruned + int8; pruned to the target's budget + int8; a distilled student + int8. */
export const PRESETS = ['smaller', 'balanced', 'faster', 'distilled'] as const;
export type DialogPreset = (typeof PRESETS)[number];

export const QUANTIZE_MODES = ['none', 'static', 'qat', 'auto', 'dynamic'] as const;

/** The body of POST /model-versions/{id}/compress/ for a preset (or advanced recipes when given). */
export function compressBody({
  preset,
  recipes,
  teacher,
  target,
  maxMetricDrop,
}: {
  preset: DialogPreset;
  recipes?: CompressBody['recipes'] | null;
  teacher?: number | null;
  target?: number | string | null;
  maxMetricDrop?: number | null;
}): CompressBody {
  const body: CompressBody = {};
  if (recipes && recipes.length) body.recipes = recipes;
  else body.preset = preset;
  if (teacher !== null && teacher !== undefined) body.teacher = teacher;
  if (target !== null && target !== undefined && target !== '') body.target_profile = String(target);
  if (typeof maxMetricDrop === 'number' && Number.isFinite(maxMetricDrop)) body.max_metric_drop = maxMetricDrop;
  return body;
}

export function compressModelVersion(modelVersionId: number, body: CompressBody) {
  return unwrap(api.POST('/api/v1/model-versions/{id}/compress/', { params: { path: { id: modelVersionId } }, body }));
}

export function getCompression(id: number) {
  return unwrap(api.GET('/api/v1/compressions/{id}/', { params: { path: { id } } }));
}

/** The compression runs of a model version (newest first, as the API orders them). */
export function listCompressionsOf(parentId: number): Promise<Compression[]> {
  return unwrap(api.GET('/api/v1/compressions/', { params: { query: { parent: parentId, page_size: 100 } } })).then((data) => data.results);
}

export function postBrowserLatency(compressionId: number, body: BrowserLatencyBody) {
  return unwrap(api.POST('/api/v1/compressions/{id}/browser-latency/', { params: { path: { id: compressionId } }, body }));
}

/** Target profiles: the builtins (GET /target-profiles/builtins/, no id) then the workspace's own; a part
 * that fails (an older server without the endpoint) is left out, so the dialog falls back to the default. */
export async function listTargetProfiles(workspaceId: number | null): Promise<TargetProfileRow[]> {
  const [builtins, own] = await Promise.all([
    unwrap(api.GET('/api/v1/target-profiles/builtins/')).catch(() => []),
    workspaceId === null
      ? Promise.resolve([])
      : unwrap(api.GET('/api/v1/target-profiles/', { params: { query: { workspace: workspaceId, page_size: 100 } } }))
          .then((data) => data?.results ?? [])
          .catch(() => []),
  ]);
  return [
    ...(Array.isArray(builtins) ? builtins : []).map((row): TargetProfileRow => ({ ...row, id: null, builtin: true })),
    ...own.map((row): TargetProfileRow => ({ ...row, builtin: false })),
  ];
}

/** The value a target profile is sent as: a builtin's name, a workspace profile's id. */
export function targetValue(profile: TargetProfileRow): string {
  return profile.builtin || profile.id === null || profile.id === undefined ? profile.name : String(profile.id);
}

export function getJob(id: number) {
  return unwrap(api.GET('/api/v1/jobs/{id}/', { params: { path: { id } } }));
}

export function jobIdOf(compression: Pick<Compression, 'job'> | undefined): number | null {
  return compression?.job ?? null;
}

/** A compressed model version's lineage, or null for any other version. */
export function compressionLineageOf(version: { source?: string; lineage?: unknown } | null | undefined): CompressionLineage | null {
  const lineage = version?.lineage as { kind?: string } | null | undefined;
  return lineage && lineage.kind === 'compression_lineage' ? (lineage as CompressionLineage) : null;
}

/** A recipe in a few words ("prune to 50% FLOPs + int8 (auto)") in the UI's language. */
export function describeRecipe(recipe: CompressionRecipe): string {
  const parts: string[] = [];
  if (recipe.prune?.flops_ratio !== undefined) parts.push(i18n.t('compression:recipe.pruneFlops', { percent: Math.round(recipe.prune.flops_ratio * 100) }));
  if (recipe.prune?.latency_ms !== undefined) parts.push(i18n.t('compression:recipe.pruneLatency', { ms: recipe.prune.latency_ms }));
  if (recipe.distill) parts.push(recipe.distill.student ? i18n.t('compression:recipe.distillTo', { student: recipe.distill.student }) : i18n.t('compression:recipe.distill'));
  if (recipe.quantize) parts.push(i18n.t('compression:recipe.quantize', { mode: recipe.quantize }));
  if (recipe.fine_tune_epochs) parts.push(i18n.t('compression:recipe.fineTune', { count: recipe.fine_tune_epochs }));
  return parts.length ? parts.join(' + ') : i18n.t('compression:recipe.none');
}

/** The browser measurement of each model version in a report (the latest one wins). */
export function browserLatencyByVersion(report: CompressionReport | null | undefined): Map<number, BrowserLatency> {
  const map = new Map<number, BrowserLatency>();
  for (const row of report?.browser_latency ?? []) map.set(row.model_version, row);
  return map;
}

/** The project's model versions (the teacher picker). */
export function listProjectModelVersions(projectId: number) {
  return unwrap(api.GET('/api/v1/model-versions/', { params: { query: { project: projectId, page_size: 100 } } })).then((data) => data.results);
}
