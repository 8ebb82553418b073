/**
 * The service's TLS certificate and key, the door of `tls/`: reading and checking the pair
 * (TLS_CERT, TLS_KEY, TLS_KEY_PASSPHRASE) in `credentials.ts`, and putting a renewed pair in
 * use on SIGHUP or when its files change in `reloader.ts`. Wiring them to a listener is the
 * server's job.
 */
export {
  EXPIRY_WARNING_DAYS,
  MAX_PEM_BYTES,
  readTlsCredentials,
  type TlsCredentials,
  type TlsFiles,
  type TlsProblem,
  type TlsReading,
  type TlsSetting,
} from './credentials.js';
export {
  DEFAULT_POLL_MS,
  DEFAULT_SETTLE_MS,
  watchTlsCredentials,
  type CredentialReloader,
  type CredentialReloaderOptions,
  type ReloadLogLevel,
} from './reloader.js';
