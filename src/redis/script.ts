/**
 * Lua scripts as Redis caches them: by the SHA1 of their text, so `EVALSHA` sends 40 hex digits
 * instead of the script, and `EVAL` sends the text once when Redis has none (after a restart or
 * `SCRIPT FLUSH`).
 */
import { createHash } from 'node:crypto';

/** A script's text and the digest Redis knows it by. */
export interface RedisScript {
  readonly source: string;
  /** Lower-case hex SHA1 of the UTF-8 text, as `SCRIPT LOAD` answers. */
  readonly sha1: string;
}

/** A script, its digest computed once. */
export function createScript(source: string): RedisScript {
  return Object.freeze({ source, sha1: createHash('sha1').update(source, 'utf8').digest('hex') });
}
