import { errorFromText } from '@/api/client';

/** One line of a job's output (workers/contracts/custom_code.py LogLine). TODO(lead): generated type */
export type LogLine = { seq: number; stream: 'stdout' | 'stderr' | 'system'; text: string; at: string };

/** A page of GET /api/v1/jobs/{id}/logs/. TODO(lead): generated type */
export type LogPage = { lines: LogLine[]; next_after: number; finished: boolean };

/** What the logs panel holds: every line read so far (the newest MAX_LOG_LINES), where to go on from. */
export type LogState = { lines: LogLine[]; next_after: number; finished: boolean; dropped: number };

export const LOG_PAGE_LIMIT = 1000;
/** Lines kept in the browser; older ones are dropped from the view (the count says how many). */
export const MAX_LOG_LINES = 20_000;
/** Pages read in one poll before the next one goes on. */
const PAGES_PER_POLL = 5;

export const EMPTY_LOGS: LogState = { lines: [], next_after: 0, finished: false, dropped: 0 };

// TODO(lead): generated type — `api.GET('/api/v1/jobs/{id}/logs/')` once the client is regenerated.
export async function getLogPage(id: number, after: number, limit = LOG_PAGE_LIMIT): Promise<LogPage> {
  const base = typeof window === 'undefined' ? '' : window.location.origin;
  const response = await globalThis.fetch(
    new Request(`${base}/api/v1/jobs/${id}/logs/?after=${after}&limit=${limit}`, { headers: { Accept: 'application/json' }, credentials: 'same-origin' }),
  );
  const text = await response.text();
  if (!response.ok) throw errorFromText(response.status, response.statusText, text);
  return JSON.parse(text) as LogPage;
}

/** Appends what came after `state` (a few pages at most per call), keeping the newest MAX_LOG_LINES. */
export async function readMoreLogs(id: number, state: LogState): Promise<LogState> {
  let next = state;
  for (let page = 0; page < PAGES_PER_POLL; page += 1) {
    const data = await getLogPage(id, next.next_after);
    let lines = [...next.lines, ...data.lines];
    let dropped = next.dropped;
    if (lines.length > MAX_LOG_LINES) {
      dropped += lines.length - MAX_LOG_LINES;
      lines = lines.slice(lines.length - MAX_LOG_LINES);
    }
    next = { lines, next_after: Math.max(next.next_after, data.next_after), finished: data.finished, dropped };
    if (data.lines.length < LOG_PAGE_LIMIT) break;
  }
  return next;
}
