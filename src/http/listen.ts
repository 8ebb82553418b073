/**
 * Listening on HOST and PORT, with a start-up failure that names the setting to fix
 * (`HOST "nowhere.invalid" cannot be listened on (ENOTFOUND)`, `PORT 8000 is in use (EADDRINUSE)`).
 */
import type { Server } from 'node:http';

/** Codes that say the HOST value does not name an address of this machine. */
const HOST_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EADDRNOTAVAIL', 'EAFNOSUPPORT']);

/** A listen that failed, with a message that names the setting. */
export class ListenError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'ListenError';
  }
}

/** The message for a failed listen, or undefined when the code is not about a setting. */
export function describeListenError(code: string, host: string, port: number): string | undefined {
  if (code === 'EADDRINUSE') return `PORT ${port} is in use (${code})`;
  if (code === 'EACCES') return `PORT ${port} needs privileges this process lacks (${code})`;
  if (HOST_CODES.has(code)) return `HOST ${JSON.stringify(host)} cannot be listened on (${code})`;
  return undefined;
}

/** Listens; a failure about HOST or PORT rejects with a ListenError. */
export function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (err: Error & { code?: string }) => {
      const message = err.code === undefined ? undefined : describeListenError(err.code, host, port);
      reject(message === undefined ? err : new ListenError(message, err.code!));
    };
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
}
