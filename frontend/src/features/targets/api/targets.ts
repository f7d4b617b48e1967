import { errorFromText, readCookie, type Paginated } from '@/api/client';

// TODO(lead): swap for generated type (GET/POST /api/v1/target-profiles/ once H5's endpoints are in the schema)
/** A deployment target: where a model will run, and what it must meet there (workers/contracts/targets.py). */
export type TargetProfile = {
  /** null for a builtin profile (named, read-only, the same in every workspace). */
  id: number | null;
  name: string;
  builtin: boolean;
  workspace: number | null;
  description: string;
  runtime: string;
  execution_provider: string;
  intra_op_threads: number;
  inter_op_threads: number;
  batch_size: number;
  /** target latency = latency measured on the worker x slowdown (1.0: the worker itself). */
  slowdown: number;
  latency_budget_ms: number | null;
  size_budget_bytes: number | null;
};

// TODO(lead): swap for generated type
export type TargetProfileBody = {
  workspace: number;
  name: string;
  description: string;
  intra_op_threads: number;
  inter_op_threads: number;
  slowdown: number;
  latency_budget_ms: number | null;
  size_budget_bytes: number | null;
};

export const targetKeys = {
  all: ['target-profiles'] as const,
  list: (workspace: number | null) => [...targetKeys.all, 'list', { workspace }] as const,
};

/** A call to an endpoint the generated client does not know yet: same cookies, CSRF header and errors as `api`. */
async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const token = method === 'GET' ? null : readCookie('csrftoken');
  if (token) headers['X-CSRFToken'] = token;
  const response = await globalThis.fetch(
    new Request(`${typeof window === 'undefined' ? '' : window.location.origin}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  if (!response.ok) throw errorFromText(response.status, response.statusText, text);
  return (text ? JSON.parse(text) : null) as T;
}

/** Builtins first (GET /target-profiles/builtins/, contracts without an id), then the workspace's own (a page). */
export async function listTargetProfiles(workspace: number | null): Promise<TargetProfile[]> {
  const builtins = await request<Omit<TargetProfile, 'id' | 'builtin' | 'workspace'>[]>('GET', '/api/v1/target-profiles/builtins/');
  const own =
    workspace === null ? [] : await request<Paginated<TargetProfile> | TargetProfile[]>('GET', `/api/v1/target-profiles/?workspace=${workspace}&page_size=100`);
  return [
    ...builtins.map((row) => ({ ...row, id: null, builtin: true, workspace: null })),
    ...(Array.isArray(own) ? own : own.results).map((row) => ({ ...row, builtin: false })),
  ];
}

export function createTargetProfile(body: TargetProfileBody) {
  return request<TargetProfile>('POST', '/api/v1/target-profiles/', body);
}

export function updateTargetProfile(id: number, body: Partial<TargetProfileBody>) {
  return request<TargetProfile>('PATCH', `/api/v1/target-profiles/${id}/`, body);
}

export function deleteTargetProfile(id: number) {
  return request<null>('DELETE', `/api/v1/target-profiles/${id}/`);
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
