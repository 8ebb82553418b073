/**
 * Method-and-path matching. The router returns a result, never a response: the app decides
 * what `methodNotAllowed` and `notFound` look like.
 *
 * Paths are split on `/` first and each segment is percent-decoded afterwards, so `/a%2Fb`
 * stays one segment (`a/b`) and never matches `/a/b`. An invalid percent-encoding makes the
 * path match nothing.
 */

/** A route's path pattern: literal segments, `{name}` for one segment, `{name*}` for the rest. */
export interface Route<H> {
  /** Controller id, shown in the profiler (`app.entry_point`). */
  readonly id: string;
  readonly path: string;
  /** Allowed methods in the order the Allow header lists them. A GET route also serves HEAD. */
  readonly methods: readonly string[];
  /**
   * When set, a path match is `matched` whatever the method, so the handler can tell a 405
   * (the resource exists) from a 404 (it does not). An earlier route that matches the path
   * keeps its `methodNotAllowed` answer: this flag never hides another route's Allow list.
   */
  readonly handlesEveryMethod?: boolean;
  readonly handler: H;
}

/** A route (of the app's own kind `R`, with whatever it carries beside the pattern), compiled. */
export type CompiledRoute<R extends Route<unknown>> = R & {
  readonly segments: readonly PatternSegment[];
  /** Its answer to a match without parameters or rest, made once and shared. */
  readonly plainMatch: RouteMatch<R>;
};

type PatternSegment =
  | { readonly kind: 'literal'; readonly value: string }
  | { readonly kind: 'param'; readonly name: string }
  | { readonly kind: 'rest' };

export type RouteMatch<R extends Route<unknown>> =
  | {
      readonly kind: 'matched';
      readonly route: CompiledRoute<R>;
      readonly params: Readonly<Record<string, string>>;
      /** The decoded segments a `{name*}` pattern took, kept apart: `/a%2Fb/c` gives `['a/b', 'c']`. */
      readonly rest: readonly string[];
    }
  | { readonly kind: 'methodNotAllowed'; readonly allow: readonly string[] }
  | { readonly kind: 'notFound' };

/** Checks and compiles route definitions once, at start-up. Misuse is a TypeError. */
export function compileRoutes<R extends Route<unknown>>(routes: readonly R[]): readonly CompiledRoute<R>[] {
  return routes.map((route) => {
    if (!route.path.startsWith('/')) throw new TypeError(`route ${route.id}: path must start with "/"`);
    if (route.methods.length === 0) throw new TypeError(`route ${route.id}: no methods`);
    const segments = route.path.slice(1).split('/').map((text, i, all): PatternSegment => {
      const param = /^\{([a-zA-Z_]\w*)(\*)?\}$/.exec(text);
      if (!param) return { kind: 'literal', value: text };
      if (param[2] !== undefined && i !== all.length - 1) {
        throw new TypeError(`route ${route.id}: {${param[1]}*} must be the last segment`);
      }
      return param[2] === undefined ? { kind: 'param', name: param[1]! } : { kind: 'rest' };
    });
    const compiled = { ...route, segments, plainMatch: { kind: 'notFound' } as RouteMatch<R> };
    compiled.plainMatch = { kind: 'matched', route: compiled, params: NO_PARAMS, rest: NO_SEGMENTS };
    return compiled;
  });
}

const SLASH = 0x2f;

/**
 * Splits a raw path (`/a/b%20c`, no query) into decoded segments: `['a', 'b c']`.
 * Undefined when the path does not start with `/` (`*`) or has an invalid percent-encoding.
 */
export function splitPath(rawPath: string): string[] | undefined {
  if (rawPath.charCodeAt(0) !== SLASH) return undefined;
  // An indexOf walk: on the hot path it allocates only the segments (split() costs more here).
  const segments: string[] = [];
  let from = 1;
  for (let slash = rawPath.indexOf('/', from); slash >= 0; slash = rawPath.indexOf('/', from)) {
    segments.push(rawPath.slice(from, slash));
    from = slash + 1;
  }
  segments.push(rawPath.slice(from));
  if (!rawPath.includes('%')) return segments;
  try {
    return segments.map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

/** Matches the effective method and the decoded segments against the routes, in order. */
export function matchRoute<R extends Route<unknown>>(
  routes: readonly CompiledRoute<R>[],
  method: string,
  segments: readonly string[] | undefined,
): RouteMatch<R> {
  if (segments === undefined) return { kind: 'notFound' };
  let allow: string[] | undefined;
  for (const route of routes) {
    const params = matchSegments(route.segments, segments);
    if (params === undefined) continue;
    if (allowsMethod(route.methods, method) || (route.handlesEveryMethod === true && allow === undefined)) {
      const last = route.segments[route.segments.length - 1];
      if (last?.kind === 'rest') return { kind: 'matched', route, params, rest: segments.slice(route.segments.length - 1) };
      // A literal route (`/`) is matched by the same, shared answer every time.
      if (params === NO_PARAMS) return route.plainMatch;
      return { kind: 'matched', route, params, rest: NO_SEGMENTS };
    }
    allow ??= [];
    for (const m of route.methods) if (!allow.includes(m)) allow.push(m);
  }
  return allow ? { kind: 'methodNotAllowed', allow } : { kind: 'notFound' };
}

function allowsMethod(methods: readonly string[], method: string): boolean {
  return methods.includes(method) || (method === 'HEAD' && methods.includes('GET'));
}

/** The rest of a match whose pattern has no `{name*}`: shared, never written. */
const NO_SEGMENTS: readonly string[] = Object.freeze([]);

/** The parameters of a match without any: shared, so a failed or literal match allocates nothing. */
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

function matchSegments(
  pattern: readonly PatternSegment[],
  segments: readonly string[],
): Readonly<Record<string, string>> | undefined {
  let params: Record<string, string> | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i]!;
    if (part.kind === 'rest') {
      if (i >= segments.length) return undefined;
      return params ?? NO_PARAMS;
    }
    const segment = segments[i];
    if (segment === undefined) return undefined;
    if (part.kind === 'literal') {
      if (part.value !== segment) return undefined;
    } else {
      if (segment === '') return undefined;
      (params ??= {})[part.name] = segment;
    }
  }
  return pattern.length === segments.length ? (params ?? NO_PARAMS) : undefined;
}
