/**
 * Entry point: config -> app -> listen (plain HTTP, or HTTPS with h2 and the certificate
 * watched); signals and graceful stop.
 *
 * `node dist/server.js` starts the service and prints one line, `listening on http://host:port`
 * (`https://` with TLS_CERT).
 * Importing this module starts nothing: `startServer` is also part of the library API.
 */
import type { RequestListener, Server, ServerOptions } from 'node:http';
import { Http2ServerResponse, type Http2ServerRequest, type ServerHttp2Session } from 'node:http2';
import type { Server as HttpsServer } from 'node:https';
import { createServer } from './util/node-http.js';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { createApp, describeVersions } from './app/index.js';
import { createClientErrorHandler, answerConnectWith, DEFAULT_TIMEOUTS, applyConnectionRules, timeoutOptions, type ConnectionTimeouts, CountedRequest, createResponseClass, listen, createRequestIdSource, boundPipelining, sendBody, addToEveryAnswer, createSecureServer, closeSessions, secureContextOptions, startRedirectListener, STOP_GRACE_MS, stopGracefully, watchConnections } from './http/index.js';
import { type CredentialReloader, readTlsCredentials, type TlsCredentials, type TlsFiles, watchTlsCredentials } from './tls/index.js';
import type { ListeningMessage } from './cluster.js';
import { isMainModule } from './util/main-module.js';
import { ConfigError, loadConfig, readSettingWarnings, type Config, type TlsSettings } from './config/index.js';
import { createThrottledLog, type AccessLog, type FileLogger, type Logger, type ThrottledLog, createConfiguredAccessLog, createConfiguredFileLogger } from './log/index.js';
import { type ServiceDocumentSource, createSettingsStore, ensureServiceDocument, storeServiceDocument } from './store/index.js';
import type { PosterService } from './poster/index.js';
import { createOperability, type AdminListener, type Operability } from './ops/index.js';

export { createConfiguredFileLogger } from './log/index.js';
export { STOP_GRACE_MS } from './http/index.js';

/** The app, called by node:http2's compat API with its own request and response. */
type Http2Listener = (req: Http2ServerRequest, res: Http2ServerResponse) => void;


export interface StartOptions {
  readonly config: Config;
  readonly logger?: Logger;
  readonly clock?: () => number;
  readonly serviceDocument?: ServiceDocumentSource;
  /** Where start-up notices go (a generated dev key pair); default stdout. */
  readonly say?: (line: string) => void;
  /** Size and queue of the poster render pool (default: one worker per core, 4 queued each). */
  readonly renderPool?: { readonly size?: number; readonly maxQueued?: number };
  /** Connection timeouts (default: a 10 s head, 5 s idle; docs/http.md, "Limits"); tests pass small ones. */
  readonly timeouts?: Partial<ConnectionTimeouts>;
  /** The access log (default: the one ACCESS_LOG describes, in LOG_DIR). */
  readonly accessLog?: AccessLog;
  /**
   * Where metrics and readiness go when ADMIN_PORT is set: `listen` (default) serves them here,
   * `report` sends them to the cluster primary, which serves them for every worker.
   */
  readonly adminRole?: 'listen' | 'report';
  /** The cluster worker's id, written in access lines (default 0: no cluster). */
  readonly worker?: number;
}

export interface RunningServer {
  readonly server: Server;
  /** `http://127.0.0.1:8000`, with the real port when PORT=0. */
  readonly url: string;
  /** The operator's listener (`http://127.0.0.1:9100`), when ADMIN_PORT is set and this process serves it. */
  readonly adminUrl: string | undefined;
  /** The plain-HTTP listener that redirects to HTTPS (`http://127.0.0.1:8080`), when REDIRECT_PORT is set. */
  readonly redirectUrl: string | undefined;
  readonly logger: Logger;
  /** Reads TLS_CERT and TLS_KEY again (SIGHUP); whether a new pair is now served. */
  reloadCertificate(): boolean;
  /**
   * Fails readiness and serves on for DRAIN_SECONDS, then stops accepting, lets requests in
   * flight finish (at most STOP_GRACE_MS), flushes the logs.
   */
  stop(): Promise<void>;
}

/** Starts the service on the configured host and port. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config } = options;
  const logger = options.logger ?? createConfiguredFileLogger(config, options.clock);
  const serviceDocument = options.serviceDocument ?? openServiceDocument(config, options.clock);
  const say = options.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  const posterApi = config.posterApi ? await loadPosterService(config, options.clock ?? Date.now, say, logger, options.renderPool) : undefined;
  // The dev profiler observes the app (APP_ENV=dev with APP_DEBUG=1 only); elsewhere none of it exists.
  const observer = config.appEnv === 'dev' && config.debug
    ? (await import('./profiler/index.js')).createProfiler(config, options.clock ?? Date.now)
    : undefined;
  let draining = false;
  const newRequestId = createRequestIdSource();
  const operability = await createOperability({
    newRequestId,
    config,
    errorLogLines: isFileLogger(logger) ? () => logger.lineCounts() : undefined,
    accessLog: options.accessLog ?? (await createConfiguredAccessLog(config, options.clock)),
    role: config.admin === undefined ? 'off' : (options.adminRole ?? 'listen'),
    worker: options.worker ?? 0,
    serviceDocument,
    posters: posterApi,
    draining: () => draining,
  });
  const outcomes = operability.outcomes;
  const app = createApp({ config, logger, clock: options.clock, serviceDocument, routes: posterApi?.routes ?? [], observer, watch: outcomes?.watch, newRequestId });
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const tls = config.tls && openTls(config.tls, config.secrets.TLS_KEY_PASSPHRASE, logger, say);
  const { server, badRequests, sessions } = createHttpServer(app, config, timeouts, logger, outcomes, () => draining, tls?.credentials);
  // Watched from before it listens: the stop closes the idle ones itself.
  const connections = watchConnections(server, tls !== undefined);
  const admin = await listenWith(server, config, posterApi, operability);
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  const reloader = tls && watchTls(tls, server as HttpsServer, logger);
  const redirect = config.tls?.redirectPort === undefined ? undefined : await startRedirectListener(
    config.host, config.tls.redirectPort, { httpsPort: port, baseUrl: config.baseUrl, trustedHosts: config.trustedHosts }, timeouts,
  ).catch(async (err: unknown) => {
    await new Promise((resolve) => server.close(resolve));
    await Promise.all([posterApi?.close(), operability.close()]);
    throw err;
  });
  let stopping: Promise<void> | undefined;
  const stop = async () => {
    draining = true;
    // Still serving, every answer closing its connection, while balancers see /readyz fail; an
    // h2 connection is told to finish its streams and go (GOAWAY), as HTTP/1.1's is by its next answer.
    closeSessions(sessions);
    if (config.drainSeconds > 0) await new Promise((resolve) => setTimeout(resolve, config.drainSeconds * 1000));
    reloader?.close();
    redirect?.server.close();
    redirect?.server.closeAllConnections();
    closeSessions(sessions);
    await stopGracefully(server, connections, sessions, () => logger.log('app', 'WARNING', `Stopped with requests still in flight after ${STOP_GRACE_MS / 1000} s`));
    badRequests.flush();
    await logger.flush();
    await Promise.all([posterApi?.close(), operability.flush(), operability.close()]);
  };
  return {
    server,
    url: `${tls ? 'https' : 'http'}://${host}:${port}`,
    adminUrl: admin?.url,
    redirectUrl: redirect?.url,
    logger,
    reloadCertificate: () => reloader?.reload('SIGHUP') ?? false,
    stop: () => (stopping ??= stop()),
  };
}

/** The settings store's service document, created with its defaults on first start. */
function openServiceDocument(config: Config, clock: (() => number) | undefined): ServiceDocumentSource {
  const store = createSettingsStore({ varDir: config.varDir, appEnv: config.appEnv, clock });
  ensureServiceDocument(store);
  return storeServiceDocument(store);
}

/**
 * The `node:http` server of the app, with the service's connection rules, its CONNECT answer,
 * its own 417 and its throttled log of requests Node's parser refused.
 */
function createHttpServer(
  app: RequestListener, config: Config, timeouts: ConnectionTimeouts, logger: Logger,
  outcomes: Operability['outcomes'], draining: () => boolean, credentials: TlsCredentials | undefined,
): { server: Server; badRequests: ThrottledLog; sessions: ReadonlySet<ServerHttp2Session> } {
  const hsts = config.tls && config.tls.hstsMaxAge > 0 ? ['strict-transport-security', `max-age=${config.tls.hstsMaxAge}`] : [];
  const Response = addToEveryAnswer(createResponseClass({ draining }), hsts);
  // requireHostHeader off: the app answers a missing Host itself, as a logged problem (docs/http.md, "Routing and errors").
  const http1 = { ...timeoutOptions(timeouts), requireHostHeader: false, IncomingMessage: CountedRequest, ServerResponse: Response };
  // A TLS handshake gets the time a request head gets (Node's default is 120 s).
  const handshakeTimeout = timeouts.headMs;
  const secure = config.tls && credentials && createSecureServer({
    // Node's types tie the classes' generic parameters together; these are the plain listener's.
    http1: { ...http1, handshakeTimeout } as ServerOptions,
    http1Listener: boundPipelining(app),
    credentials: { cert: credentials.cert, key: credentials.key },
    // The compat API of node:http2 answers with the calls the app makes of a node:http response.
    http2: config.tls.http2 ? { listener: app as unknown as Http2Listener, Response: addToEveryAnswer(class extends Http2ServerResponse {}, hsts), idleMs: timeouts.idleMs } : undefined,
  });
  const server: Server = secure?.server ?? createServer<typeof CountedRequest, typeof Response>(http1, boundPipelining(app));
  applyConnectionRules(server, config.maxConnections, timeouts);
  server.on('connect', answerConnectWith(app, Response));
  // Node's own 417 for an Expect other than 100-continue would bypass the closing rules.
  server.on('checkExpectation', (req: CountedRequest, res: InstanceType<typeof Response>) => {
    const requestId = outcomes?.refused({ peer: req.socket.remoteAddress, status: 417, receivedAt: Date.now() });
    sendBody(res, 417, requestId === undefined ? [] : ['x-request-id', requestId], '', Date.now());
  });
  const badRequests = createThrottledLog((line) => logger.log('request', 'ERROR', line));
  server.on('clientError', createClientErrorHandler(badRequests, outcomes && ((peer, status) => outcomes.refused({ peer, status, receivedAt: Date.now() }))));
  return { server, badRequests, sessions: secure?.sessions ?? new Set() };
}

/**
 * Listens on the service's address, then starts the operator's listener (when this process
 * serves it); on a failure, closes what was opened and rethrows.
 */
async function listenWith(
  server: Server, config: Config, posterApi: PosterService | undefined, operability: Operability,
): Promise<AdminListener | undefined> {
  try {
    // jose is imported now: Node keeps a failed import for good, and a failure here stops the
    // start instead of failing every protected request until a restart.
    await posterApi?.ready();
    await listen(server, config.host, config.port);
  } catch (err) {
    await posterApi?.close();
    throw err;
  }
  try {
    return await operability.start(server);
  } catch (err) {
    await new Promise((resolve) => server.close(resolve));
    await Promise.all([posterApi?.close(), operability.close()]);
    throw err;
  }
}

/**
 * The poster API (POSTER_API=1), imported only then: without it, the service never loads the
 * poster encoder, the render pool or jose, and starts sooner and smaller.
 */
async function loadPosterService(
  config: Config,
  clock: () => number,
  say: (line: string) => void,
  logger: Logger,
  renderPool: StartOptions['renderPool'],
): Promise<PosterService> {
  const { createPosterService } = await import('./poster/index.js');
  return createPosterService({ config, clock, say, logger, renderPool });
}

/** The certificate and key TLS_CERT and TLS_KEY name, read and checked. */
interface OpenTls {
  readonly files: TlsFiles;
  readonly credentials: TlsCredentials;
}

/**
 * Reads the pair the settings named (the settings check read it once already; a pair broken
 * since then stops the start); a certificate that expires soon is a warning, logged and said.
 */
function openTls(settings: TlsSettings, passphrase: string, logger: Logger, say: (line: string) => void): OpenTls {
  const files = { certPath: settings.certPath, keyPath: settings.keyPath, passphrase };
  const read = readTlsCredentials(files, Date.now());
  if (!read.ok) throw new Error(read.problems.map((problem) => problem.message).join('; '));
  for (const warning of read.warnings) {
    logger.log('app', 'WARNING', warning);
    say(`warning: ${warning}`);
  }
  return { files, credentials: read.credentials };
}

/** Serves a renewed pair from the next handshake on, read on SIGHUP and when the files change. */
function watchTls(tls: OpenTls, server: HttpsServer, logger: Logger): CredentialReloader {
  return watchTlsCredentials({
    files: tls.files,
    current: tls.credentials,
    apply: (credentials) => server.setSecureContext(secureContextOptions(credentials)),
    log: (level, line) => logger.log('app', level, line),
  });
}

/** Whether the logger is a file sink, which counts its lines (tests log to memory). */
function isFileLogger(logger: Logger): logger is FileLogger {
  return typeof (logger as Partial<FileLogger>).lineCounts === 'function';
}


/** The settings of the environment; on a bad one, its line on stderr and exit 1. */
function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

/**
 * Runs the service as a program: exits 1 with one line on a bad setting, warns on stderr of
 * settings that do nothing; `--version` prints the package's version and the API's instead.
 */
export async function main(): Promise<void> {
  if (process.argv[2] === '--version') {
    process.stdout.write(`${describeVersions(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))}\n`);
    return;
  }
  const config = loadConfigOrExit();
  const logger = createConfiguredFileLogger(config);
  const logs: { flush(): Promise<void>; flushSync(): void }[] = [logger];
  // Whatever ends the process, queued lines reach the files.
  process.on('exit', () => {
    for (const log of logs) log.flushSync();
  });
  process.on('uncaughtException', (err) => {
    logger.log('app', 'CRITICAL', `Uncaught ${err.name}: "${err.message}" ${err.stack ?? ''}`);
    void Promise.all(logs.map((log) => log.flush())).finally(() => process.exit(1));
  });
  // node:cluster brings child_process and its primary along: loaded only with WORKERS > 1 (the
  // workers it forks read the same settings, so they load it too).
  const cluster = config.workers > 1 ? (await import('node:cluster')).default : undefined;
  // Settings that do nothing, said once: by the primary, not again by each worker.
  if (!cluster?.isWorker) for (const line of readSettingWarnings(config, { dir: process.cwd(), env: process.env })) process.stderr.write(`${line}\n`);
  if (cluster?.isPrimary) {
    const { runPrimary, workersWarning } = await import('./cluster.js');
    const warning = workersWarning(config.workers, availableParallelism());
    if (warning !== undefined) process.stderr.write(`${warning}\n`);
    await runPrimary(config, logger, (line) => process.stdout.write(`${line}\n`));
    return;
  }
  // SIGHUP's default would end the process: from the start it reloads the certificate instead
  // (docs/deployment.md, "HTTPS without a proxy"); one that comes while the service starts is acted on once
  // it listens (a cluster's primary passes it on to a worker that may still be starting).
  let reloadCertificate: (() => void) | 'pending' | undefined;
  process.on('SIGHUP', () => {
    if (typeof reloadCertificate === 'function') reloadCertificate();
    else reloadCertificate = 'pending';
  });
  const accessLog = await createConfiguredAccessLog(config);
  if (accessLog) logs.push(accessLog);
  const running = await startServer({
    config,
    logger,
    accessLog,
    adminRole: cluster?.isWorker ? 'report' : 'listen',
    worker: cluster?.worker?.id ?? 0,
  });
  const onSignal = () => {
    void running.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  const hangupPending = reloadCertificate === 'pending';
  reloadCertificate = () => {
    if (config.tls === undefined) logger.log('app', 'INFO', 'SIGHUP: nothing to reload (TLS_CERT is not set)');
    else running.reloadCertificate();
  };
  if (hangupPending) reloadCertificate();
  if (cluster?.isWorker) process.send?.({ type: 'listening', url: running.url } satisfies ListeningMessage);
  else {
    process.stdout.write(`listening on ${running.url}\n`);
    if (running.adminUrl !== undefined) process.stdout.write(`admin listening on ${running.adminUrl}\n`);
    if (running.redirectUrl !== undefined) process.stdout.write(`redirecting to https from ${running.redirectUrl}\n`);
  }
}

if (isMainModule(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
