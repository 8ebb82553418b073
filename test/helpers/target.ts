/**
 * Which build the black-box tests hit, as Hono runs one case suite against every router:
 * `SERVICE_TARGET=src` (the default, so `npm test` needs no build) runs `src/` through tsx;
 * `SERVICE_TARGET=dist` runs what `tsc` built into `dist/`, the program production runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as ConfigModule from '../../src/config/config.js';
import type * as ServerModule from '../../src/server.js';
import { ROOT } from './checkout.js';

const { isStale } = (await import(pathToFileURL(join(ROOT, 'scripts', 'build-if-needed.mjs')).href)) as { isStale: (dir: string) => boolean };

export type ServiceTargetName = 'src' | 'dist';

/** What a test needs to start the service in this process. */
export interface ServiceModules {
  readonly startServer: typeof ServerModule.startServer;
  readonly parseConfig: typeof ConfigModule.parseConfig;
}

export interface ServiceTarget {
  readonly name: ServiceTargetName;
  /** The program's entry, absolute: `src/server.ts` or `dist/server.js`. */
  readonly serverEntry: string;
  /** The file of the module `name` (`'jwt'`, `'static/plan'`) in this target, relative to the root. */
  moduleFile(name: string): string;
  loadModules(): Promise<ServiceModules>;
}

/**
 * The target `env.SERVICE_TARGET` names. Throws, saying what to do, on an unknown name or when
 * `dist/` is missing or older than `src/`: a stale build would test yesterday's code.
 */
export function serviceTarget(env: Record<string, string | undefined> = process.env, root = ROOT): ServiceTarget {
  const name = env.SERVICE_TARGET || 'src';
  if (name !== 'src' && name !== 'dist') throw new Error(`SERVICE_TARGET must be src or dist, not "${name}"`);
  const extension = name === 'src' ? '.ts' : '.js';
  const moduleFile = (module: string) => `${name}/${module}${extension}`;
  if (name === 'dist') {
    if (!existsSync(join(root, 'dist', 'server.js'))) throw new Error('SERVICE_TARGET=dist: dist/server.js is missing: run `npm run build` first');
    if (isStale(root)) throw new Error('SERVICE_TARGET=dist: dist/ is older than src/ or the TypeScript settings: run `npm run build` first');
  }
  const load = async (module: string): Promise<unknown> => import(pathToFileURL(join(root, moduleFile(module))).href);
  return {
    name,
    serverEntry: join(root, moduleFile('server')),
    moduleFile,
    async loadModules() {
      const [server, config] = (await Promise.all([load('server'), load('config/index')])) as [typeof ServerModule, typeof ConfigModule];
      return { startServer: server.startServer, parseConfig: config.parseConfig };
    },
  };
}
