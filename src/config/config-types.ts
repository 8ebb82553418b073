/** The shape of a validated config: what config.ts's table fills. */
import type { CorsOrigins } from './cors-origins.js';
import type { RedisEndpoint } from './redis-url.js';
import type { AppEnv, Namespace } from './setting-parsers.js';
import type { HostMatcher } from './trusted-hosts.js';
import type { TrustedProxies } from './trusted-proxies.js';

export interface Namespaces {
  readonly doc: Namespace;
  readonly problem: Namespace;
  readonly schema: Namespace;
  readonly service: Namespace;
  readonly static: Namespace;
  readonly admin: Namespace;
}

export interface Secrets {
  readonly APP_ID: string;
  readonly APP_KEY: string;
  readonly ACCESS_TOKEN: string;
  readonly APP_SECRET: string;
  readonly JWT_PASSPHRASE: string;
  readonly BROKER_PASSWORD: string;
  readonly TLS_KEY_PASSPHRASE: string;
}

/** TLS_CERT and TLS_KEY set: the listener serves HTTPS (docs/deployment.md, "HTTPS without a proxy"). */
export interface TlsSettings {
  /** The certificate, its chain after it (PEM). */
  readonly certPath: string;
  /** The private key (PEM), opened with TLS_KEY_PASSPHRASE when it is encrypted. */
  readonly keyPath: string;
  /** HTTP2: h2 offered by ALPN beside HTTP/1.1 (on by default). */
  readonly http2: boolean;
  /** HSTS_MAX_AGE: the `Strict-Transport-Security` max-age in seconds; 0 sends none. */
  readonly hstsMaxAge: number;
  /** REDIRECT_PORT: a plain-HTTP listener that answers 308 to the same path on https://. */
  readonly redirectPort: number | undefined;
}

export interface Config {
  /** The directory settings were read from; relative paths resolve against it. */
  readonly projectDir: string;
  readonly appEnv: AppEnv;
  readonly debug: boolean;
  readonly host: string;
  readonly port: number;
  /** `https://api.example.com` (no trailing slash), or undefined to derive it per request. */
  readonly baseUrl: string | undefined;
  readonly namespaces: Namespaces;
  readonly secrets: Secrets;
  /** `amqp://user:password@host:port/vhost`; nothing connects to it yet. */
  readonly brokerUrl: string;
  readonly trustedProxies: TrustedProxies;
  readonly trustedHosts: HostMatcher | undefined;
  /** TRUSTED_PROXIES and TRUSTED_HOSTS as written, for the dev profiler's config panel. */
  readonly trustedAsWritten: { readonly proxies: string; readonly hosts: string };
  readonly varDir: string;
  readonly logDir: string;
  readonly logTimeZone: string;
  readonly logMaxFiles: number;
  /** Bytes one day's log file may reach; later lines that day are counted, not written. */
  readonly logMaxBytes: number;
  readonly notFoundCacheControl: string;
  readonly publicDir: string;
  readonly posterApi: boolean;
  /** Total bytes `<PUBLIC_DIR>/posters/` may hold; a new poster past it is a 507. */
  readonly posterMaxBytes: number;
  /** New posters a token subject may ask for per minute; 0 turns the limit off. */
  readonly posterRateLimit: number;
  /**
   * REDIS_URL: where the poster limits live when several instances share them (the rate windows
   * and the store's byte count); undefined keeps them in local files.
   */
  readonly redis: RedisEndpoint | undefined;
  /** CORS_ORIGINS: the origins whose browser apps may call the service API (off by default). */
  readonly corsOrigins: CorsOrigins;
  /** Open connections at most; beyond it new ones are closed at once. */
  readonly maxConnections: number;
  readonly jwt: {
    readonly secretKeyPath: string;
    readonly publicKeyPath: string;
    readonly tokenTtl: number;
    readonly clockSkew: number;
    /** Verified tokens kept to skip repeated verification; 0 turns the cache off. */
    readonly cacheSize: number;
  };
  readonly profilerMax: number;
  /** Processes serving requests; more than one runs a `node:cluster` primary (`WORKERS`). */
  readonly workers: number;
  /** ACCESS_LOG: one JSON line per answered request in `<env>-access-<date>.log` (on by default). */
  readonly accessLog: boolean;
  /**
   * LOG_REQUEST_IDS: each error-log line of a request ends with its id (` {"request_id":"…"}`).
   * Off by default: the lines are then exactly the original service's.
   */
  readonly logRequestIds: boolean;
  /**
   * ADMIN_PORT and ADMIN_HOST: the operator's listener (`/healthz`, `/readyz`, `/metrics`);
   * undefined when ADMIN_PORT is unset, so nothing listens.
   */
  readonly admin: { readonly host: string; readonly port: number } | undefined;
  /**
   * DRAIN_SECONDS: how long a stopping service keeps serving (every answer closing its
   * connection) while `/readyz` says 503, so a balancer's health check takes it out of rotation
   * before it stops listening. 0 (default): it stops listening at once.
   */
  readonly drainSeconds: number;
  /** TLS_CERT, TLS_KEY and what goes with them; undefined serves plain HTTP. */
  readonly tls: TlsSettings | undefined;
}
