import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

/** Target profiles as the API serves them (platform/deploy/api/targets.py, workers/contracts/targets.py). */
type Schemas = components['schemas'];
type Builtin = Schemas['DeploymentTarget'];
type WorkspaceProfile = Schemas['WorkspaceTargetProfile'];

/** A deployment target: where a model will run, and what it must meet there (a builtin's contract or a workspace's row, as one). */
export type TargetProfile = Omit<Builtin, 'kind' | 'version'> & {
  /** null for a builtin profile (named, read-only, the same in every workspace). */
  id: WorkspaceProfile['id'] | null;
  builtin: boolean;
  workspace: WorkspaceProfile['workspace'] | null;
};

/** What the form sends to create (POST) or change (PATCH) a workspace's profile. */
export type TargetProfileBody = Schemas['WorkspaceTargetProfileRequest'];

export const targetKeys = {
  all: ['target-profiles'] as const,
  list: (workspace: number | null) => [...targetKeys.all, 'list', { workspace }] as const,
};

/** A workspace's row with the model's defaults for the fields the schema marks optional (the server always sends them). */
function fromWorkspace(row: WorkspaceProfile): TargetProfile {
  return {
    ...row,
    builtin: false,
    description: row.description ?? '',
    execution_provider: row.execution_provider ?? 'CPUExecutionProvider',
    intra_op_threads: row.intra_op_threads ?? 1,
    inter_op_threads: row.inter_op_threads ?? 1,
    batch_size: row.batch_size ?? 1,
    slowdown: row.slowdown ?? 1,
    latency_budget_ms: row.latency_budget_ms ?? null,
    size_budget_bytes: row.size_budget_bytes ?? null,
  };
}

/** Builtins first (GET /target-profiles/builtins/, contracts without an id), then the workspace's own (a page). */
export async function listTargetProfiles(workspace: number | null): Promise<TargetProfile[]> {
  const builtins = await unwrap(api.GET('/api/v1/target-profiles/builtins/'));
  const own =
    workspace === null ? [] : (await unwrap(api.GET('/api/v1/target-profiles/', { params: { query: { workspace, page_size: 100 } } }))).results;
  return [...builtins.map((row): TargetProfile => ({ ...row, id: null, builtin: true, workspace: null })), ...own.map(fromWorkspace)];
}

export function createTargetProfile(body: TargetProfileBody) {
  return unwrap(api.POST('/api/v1/target-profiles/', { body }));
}

export function updateTargetProfile(id: number, body: Schemas['PatchedWorkspaceTargetProfileUpdateRequest']) {
  return unwrap(api.PATCH('/api/v1/target-profiles/{id}/', { params: { path: { id } }, body }));
}

export function deleteTargetProfile(id: number) {
  return unwrap(api.DELETE('/api/v1/target-profiles/{id}/', { params: { path: { id } } }));
}

/** How a profile is named where one is picked: a builtin by its name, a workspace's by its id. */
export function targetRef(profile: Pick<TargetProfile, 'id' | 'name' | 'builtin'>): string {
  return profile.builtin || profile.id === null ? profile.name : String(profile.id);
}

export type ProfileDraft = {
  name: string;
  description: string;
  intra_op_threads: number | '';
  inter_op_threads: number | '';
  slowdown: number | '';
  latency_budget_ms: number | '';
  /** megabytes in the form; bytes on the wire */
  size_budget_mb: number | '';
};

export function emptyDraft(): ProfileDraft {
  return { name: '', description: '', intra_op_threads: 1, inter_op_threads: 1, slowdown: 1, latency_budget_ms: '', size_budget_mb: '' };
}

export function draftOf(profile: TargetProfile): ProfileDraft {
  return {
    name: profile.name,
    description: profile.description,
    intra_op_threads: profile.intra_op_threads,
    inter_op_threads: profile.inter_op_threads,
    slowdown: profile.slowdown,
    latency_budget_ms: profile.latency_budget_ms ?? '',
    size_budget_mb: profile.size_budget_bytes === null ? '' : Math.round((profile.size_budget_bytes / 1e6) * 1000) / 1000,
  };
}

/** The problems the form can see before asking the server, keyed by the field the server would name (i18n keys). */
export function draftProblems(draft: ProfileDraft, taken: string[]): Record<string, string> {
  const problems: Record<string, string> = {};
  const name = draft.name.trim();
  if (!name) problems.name = 'problems.nameRequired';
  else if (name.length > 100) problems.name = 'problems.nameLong';
  else if (taken.includes(name)) problems.name = 'problems.nameTaken';
  for (const field of ['intra_op_threads', 'inter_op_threads'] as const) {
    const value = draft[field];
    if (value === '' || !Number.isInteger(value) || value < 1 || value > 64) problems[field] = 'problems.threads';
  }
  if (draft.slowdown === '' || !(draft.slowdown > 0) || draft.slowdown > 1000) problems.slowdown = 'problems.slowdown';
  if (draft.latency_budget_ms !== '' && !(draft.latency_budget_ms > 0)) problems.latency_budget_ms = 'problems.positive';
  if (draft.size_budget_mb !== '' && !(draft.size_budget_mb > 0)) problems.size_budget_bytes = 'problems.positive';
  return problems;
}

export function bodyOf(draft: ProfileDraft, workspace: number): TargetProfileBody {
  return {
    workspace,
    // the only runtime there is, and the server's default (the generated type asks for it)
    runtime: 'onnxruntime',
    name: draft.name.trim(),
    description: draft.description.trim(),
    intra_op_threads: Number(draft.intra_op_threads),
    inter_op_threads: Number(draft.inter_op_threads),
    slowdown: Number(draft.slowdown),
    latency_budget_ms: draft.latency_budget_ms === '' ? null : Number(draft.latency_budget_ms),
    size_budget_bytes: draft.size_budget_mb === '' ? null : Math.round(Number(draft.size_budget_mb) * 1e6),
  };
}

/** The server's 400 details ({"slowdown": ["..."]}) as one message per field. */
export function fieldErrors(details: unknown): Record<string, string> {
  if (!details || typeof details !== 'object') return {};
  return Object.fromEntries(Object.entries(details as Record<string, unknown>).map(([field, value]) => [field, Array.isArray(value) ? value.join(' ') : String(value)]));
}
