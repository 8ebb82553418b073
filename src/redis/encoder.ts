/**
 * Commands as RESP2 sends them: an array of bulk strings, `*<n>\r\n` then `$<len>\r\n<bytes>\r\n`
 * per argument (https://redis.io/docs/latest/develop/reference/protocol-spec/#sending-commands-to-a-redis-server).
 * One buffer per command, sized before it is written.
 */

/** One argument of a command: text (sent as UTF-8), bytes, or a finite number (sent in decimal). */
export type RedisArg = string | Buffer | number;

/** The bytes of one command; a TypeError for no arguments or a number that is not finite. */
export function encodeCommand(args: readonly RedisArg[]): Buffer {
  if (args.length === 0) throw new TypeError('a Redis command needs at least its name');
  const parts = args.map(argumentBytes);
  let size = 1 + decimalLength(parts.length) + 2;
  for (const part of parts) size += 1 + decimalLength(part.length) + 2 + part.length + 2;
  const out = Buffer.allocUnsafe(size);
  let at = out.write(`*${parts.length}\r\n`, 0, 'latin1');
  for (const part of parts) {
    at += out.write(`$${part.length}\r\n`, at, 'latin1');
    at += typeof part === 'string' ? out.write(part, at, 'latin1') : part.copy(out, at);
    at += out.write('\r\n', at, 'latin1');
  }
  return out;
}

/** An argument's bytes: ASCII text stays a string (written without a copy), the rest a Buffer. */
function argumentBytes(arg: RedisArg): Buffer | string {
  if (typeof arg === 'number') {
    if (!Number.isFinite(arg)) throw new TypeError(`a Redis argument must be a finite number, not ${arg}`);
    return String(arg);
  }
  if (typeof arg === 'string') return isAscii(arg) ? arg : Buffer.from(arg, 'utf8');
  return arg;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function decimalLength(n: number): number {
  return String(n).length;
}
