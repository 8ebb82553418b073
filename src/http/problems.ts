/**
 * The problems only the edge throws: a request line, a Host or a framing the service cannot
 * answer in kind, found while the request's context is read (`request.ts`). Their codes,
 * statuses and classes are listed with every other problem's in `problem.ts`.
 */
import { Problem } from '../core/index.js';

/** `X-HTTP-Method` on a POST is not letters only. */
export class InvalidMethodOverride extends Problem {
  constructor() {
    super('invalid_method_override', 'Invalid HTTP method override.');
  }
}

/** The Host header is not a host name or bracketed IPv6 address with an optional port. */
export class InvalidHost extends Problem {
  readonly host: string;
  constructor(host: string) {
    super('invalid_host', `Invalid Host "${host}".`);
    this.host = host;
  }
}

/** HTTP/1.1 needs exactly one Host (RFC 9112 3.2): none, or more than one, is a 400. */
export class HostCount extends Problem {
  readonly count: number;
  constructor(count: number) {
    super('host_count', count === 0 ? 'The request has no Host header.' : `The request has ${count} Host headers.`);
    this.count = count;
  }
}

/** The Host header is valid but not listed in `TRUSTED_HOSTS`. */
export class UntrustedHost extends Problem {
  readonly host: string;
  constructor(host: string) {
    super('untrusted_host', `Untrusted Host "${host}".`);
    this.host = host;
  }
}

/** A request target that is none of origin-form, absolute-form or `*` (RFC 9112 3.2). */
export class InvalidRequestTarget extends Problem {
  readonly target: string;
  constructor(target: string) {
    super('invalid_request_target', `Invalid request target "${target}".`);
    this.target = target;
  }
}

/**
 * A request line whose version is no HTTP/1.x. Node's parser lets `HTTP/0.9` and `HTTP/2.0`
 * through (it refuses the others itself); neither is HTTP/1 framing we can answer in kind, so:
 * 400, then close (RFC 9112 2.3).
 */
export class UnsupportedHttpVersion extends Problem {
  readonly version: string;
  constructor(version: string) {
    super('unsupported_http_version', `HTTP version "${version}" is not supported.`, { headers: { connection: 'close' } });
    this.version = version;
  }
}

/** A transfer coding other than chunked: the body's end cannot be found (RFC 9112 6.1). */
export class UnsupportedTransferCoding extends Problem {
  readonly coding: string;
  constructor(coding: string) {
    super('unsupported_transfer_coding', `Transfer-Encoding "${coding}" is not supported.`, { headers: { connection: 'close' } });
    this.coding = coding;
  }
}
