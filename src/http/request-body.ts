/**
 * Reading a request body with a size limit: a body over the limit is refused as soon as the
 * limit is known to be passed (Content-Length, or the bytes read so far), never buffered whole.
 */
import type { IncomingMessage } from 'node:http';
import { Problem } from '../core/index.js';

export class PayloadTooLarge extends Problem {
  constructor(limit: number) {
    // Connection: close, so the rest of the body is never read.
    super('payload_too_large', `The request body is larger than ${limit} bytes.`, { headers: { connection: 'close' } });
  }
}

export class UnsupportedMediaType extends Problem {
  constructor(expected: string, got: string | undefined) {
    super('unsupported_media_type', `The request body must be ${expected}, not ${got ? JSON.stringify(got) : 'missing'}.`);
  }
}

export class InvalidJson extends Problem {
  constructor(reason: string) {
    super('invalid_json', `The request body is not valid JSON: ${reason}`);
  }
}

/** The media type of a Content-Type header without parameters, lower-cased. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

/** Reads the whole body, at most `limit` bytes; throws PayloadTooLarge past it. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new PayloadTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        reject(new PayloadTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

/** Parses a JSON body, naming what is wrong with it. */
export function parseJsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new InvalidJson((err as Error).message);
  }
}
