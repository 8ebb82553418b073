/**
 * The messages by which workers share their profiles with the cluster primary (`WORKERS` > 1,
 * dev only), and their validation: whatever arrives on the channel is checked here, once, and
 * anything else is ignored.
 *
 * A worker sends each profile once its response has closed (`keep`), asks for a token it does
 * not hold (`find`), and for the newest profiles of all workers (`search`); the primary answers
 * the last two with the request's `id`.
 */
import type { LogLevel } from '../log/index.js';
import type { ProblemDocument } from '../core/index.js';
import type { SearchCriteria } from './pages.js';
import type { LogRecord, Profile } from './profile.js';

/** The most profiles a search asks for (the search page's list). */
export const SEARCH_LIMIT = 50;

export type WorkerMessage =
  | { readonly type: 'profiler.keep'; readonly profile: Profile }
  | { readonly type: 'profiler.find'; readonly id: number; readonly token: string }
  | { readonly type: 'profiler.search'; readonly id: number; readonly criteria: SearchCriteria; readonly limit: number };

export type PrimaryMessage =
  | { readonly type: 'profiler.found'; readonly id: number; readonly profile: Profile | null }
  | { readonly type: 'profiler.results'; readonly id: number; readonly profiles: readonly Profile[] };

const LOG_LEVELS: readonly string[] = ['DEBUG', 'INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL'] satisfies LogLevel[];
const HEX = '0123456789abcdef';

/** Whether `value` can be a profile token: 6 lower-case hex characters. */
export function isToken(value: unknown): value is string {
  return typeof value === 'string' && value.length === 6 && [...value].every((c) => HEX.includes(c));
}

/** A message a worker sent, or undefined when it is none of the profiler's. */
export function parseWorkerMessage(message: unknown): WorkerMessage | undefined {
  if (!isRecord(message)) return undefined;
  switch (message.type) {
    case 'profiler.keep': {
      const profile = parseProfile(message.profile);
      return profile && { type: message.type, profile };
    }
    case 'profiler.find':
      return isId(message.id) && isToken(message.token) ? { type: message.type, id: message.id, token: message.token } : undefined;
    case 'profiler.search': {
      const criteria = parseCriteria(message.criteria);
      const { id, limit } = message;
      const fits = Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= SEARCH_LIMIT;
      return criteria && isId(id) && fits ? { type: message.type, id, criteria, limit: limit as number } : undefined;
    }
    default:
      return undefined;
  }
}

/** An answer the primary sent, or undefined when it is none of the profiler's. */
export function parsePrimaryMessage(message: unknown): PrimaryMessage | undefined {
  if (!isRecord(message) || !isId(message.id)) return undefined;
  switch (message.type) {
    case 'profiler.found': {
      if (message.profile === null) return { type: message.type, id: message.id, profile: null };
      const profile = parseProfile(message.profile);
      return profile && { type: message.type, id: message.id, profile };
    }
    case 'profiler.results': {
      if (!Array.isArray(message.profiles) || message.profiles.length > SEARCH_LIMIT) return undefined;
      const profiles = message.profiles.map(parseProfile);
      return profiles.every((p) => p !== undefined) ? { type: message.type, id: message.id, profiles: profiles as Profile[] } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * A profile as it crossed the channel (JSON: members that were undefined are absent), checked
 * member by member so that every page can render it.
 */
export function parseProfile(value: unknown): Profile | undefined {
  if (!isRecord(value)) return undefined;
  const v = value;
  const valid =
    isToken(v.token) &&
    (v.parentToken === undefined || isToken(v.parentToken)) &&
    Array.isArray(v.children) && v.children.every(isToken) &&
    isFiniteNumber(v.time) &&
    [v.requestId, v.method, v.originalMethod, v.rawPath, v.target, v.clientIp].every((s) => typeof s === 'string') &&
    isHeaderList(v.requestHeaders) &&
    isHeaderList(v.responseHeaders) &&
    isRecord(v.attributes) &&
    (v.status === undefined || Number.isInteger(v.status)) &&
    (v.durationMs === undefined || isFiniteNumber(v.durationMs)) &&
    Array.isArray(v.logs) && v.logs.every(isLogRecord) &&
    (v.problem === undefined || isRecord(v.problem)) &&
    (v.stack === undefined || typeof v.stack === 'string');
  if (!valid) return undefined;
  return {
    token: v.token as string,
    parentToken: v.parentToken as string | undefined,
    children: v.children as string[],
    time: v.time as number,
    requestId: v.requestId as string,
    method: v.method as string,
    originalMethod: v.originalMethod as string,
    rawPath: v.rawPath as string,
    target: v.target as string,
    clientIp: v.clientIp as string,
    requestHeaders: v.requestHeaders as [string, string][],
    responseHeaders: v.responseHeaders as [string, string][],
    attributes: v.attributes as Record<string, unknown>,
    status: v.status as number | undefined,
    durationMs: v.durationMs as number | undefined,
    logs: v.logs as LogRecord[],
    problem: v.problem as ProblemDocument | undefined,
    stack: v.stack as string | undefined,
  };
}

function parseCriteria(value: unknown): SearchCriteria | undefined {
  if (!isRecord(value)) return undefined;
  const { method, path, status, ip } = value;
  const optionalText = (s: unknown) => s === undefined || typeof s === 'string';
  if (![method, path, ip].every(optionalText) || !(status === undefined || Number.isInteger(status))) return undefined;
  return { method: method as string | undefined, path: path as string | undefined, status: status as number | undefined, ip: ip as string | undefined };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isHeaderList(value: unknown): boolean {
  return Array.isArray(value) && value.every((h) => Array.isArray(h) && h.length === 2 && typeof h[0] === 'string' && typeof h[1] === 'string');
}

function isLogRecord(value: unknown): value is LogRecord {
  return (
    isRecord(value) &&
    isFiniteNumber(value.at) &&
    typeof value.channel === 'string' &&
    LOG_LEVELS.includes(value.level as string) &&
    typeof value.message === 'string'
  );
}
