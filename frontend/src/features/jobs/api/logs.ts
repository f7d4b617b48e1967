import { api, unwrap } from '@/api/client';
import type { components } from '@/api/schema';

/** One line of a job's output (workers/contracts/custom_code.py LogLine). */
export type LogLine = components['schemas']['LogLine'];

/** A page of GET /api/v1/jobs/{id}/logs/. */
export type LogPage = components['schemas']['JobLogPage'];

/** What the logs panel holds: every line read so far (the newest MAX_LOG_LINES), where to go on from. */
export type LogState = { lines: LogLine[]; next_after: number; finished: boolean; dropped: number };

export const LOG_PAGE_LIMIT = 1000;
/** Lines kept in the browser; older ones are dropped from the view (the count says how many). */
export const MAX_LOG_LINES = 20_000;
/** Pages read in one poll before the next one goes on. */
const PAGES_PER_POLL = 5;

export const EMPTY_LOGS: LogState = { lines: [], next_after: 0, finished: false, dropped: 0 };

export function getLogPage(id: number, after: number, limit = LOG_PAGE_LIMIT): Promise<LogPage> {
  return unwrap(api.GET('/api/v1/jobs/{id}/logs/', { params: { path: { id }, query: { after, limit } } }));
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
