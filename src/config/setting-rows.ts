/**
 * How config.ts's table is written and read: a row per setting (the variable, the Config field it
 * fills, its parser, its default, its bounds, whether it is a credential) or per derived field;
 * each row's parser and default type-checked against its field.
 */
import { ConfigError, ConfigErrors } from './config-error.js';
import type { Config, Secrets } from './config-types.js';
import type { Env } from './env-files.js';
import { type Bounds, type ParseFacts, type Parser, parseSecret } from './setting-parsers.js';

/** Config members whose own members each have a row, named `group.member` (`jwt.tokenTtl`). */
type Group = 'namespaces' | 'secrets' | 'jwt';

/** What a row fills: a member of Config, or a member of one of its groups. */
export type Field = Exclude<keyof Config, Group> | { [G in Group]: `${G}.${keyof Config[G] & string}` }[Group];

/** The type Config gives a field. */
export type FieldType<F extends Field> = F extends `${infer G extends Group}.${infer M}` ? Config[G][M & keyof Config[G]] : Config[F & keyof Config];

/** Every field, flat, as the rows fill them before they are nested into a Config. */
type Values = { readonly [F in Field]: FieldType<F> };

/** What a default or a derived field may depend on. */
export interface Context extends ParseFacts<unknown> {
  /** A variable's value; undefined when unset or empty. */
  read(name: string): string | undefined;
  /** The fields of the rows above (one whose setting was bad holds undefined; that config is thrown away). */
  readonly earlier: Values;
  /** Runs `parse`, its ConfigError reported with every other rather than thrown. */
  check<T>(parse: () => T): T;
}

/** A default computed when the config is read: by the row's parser, or from the rows above. */
class ComputedDefault<T> {
  constructor(readonly compute: (context: Context, parse: (text: string) => T) => T) {}
}

/** The default is what the row's parser makes of `text` (`/doc/`; `var`, resolved against the directory). */
export function parsed<T>(text: string): ComputedDefault<T> {
  return new ComputedDefault<T>((_context, parse) => parse(text));
}

/** The default depends on the rows above (APP_DEBUG's on APP_ENV). */
export function dependent<T>(compute: (context: Context) => T): ComputedDefault<T> {
  return new ComputedDefault<T>(compute);
}

/** How a setting is read: its parser, its value when unset, and for a whole number its bounds. */
type Spec<T> = { readonly parse: Parser<T>; readonly default: T | ComputedDefault<T> } & ([T] extends [number]
  ? { readonly bounds: Bounds }
  : { readonly bounds?: undefined });

/** One setting: the variable `name` fills `field`. */
type SettingRow<F extends Field> = { readonly name: string; readonly field: F } & Spec<FieldType<F>>;

/** A credential: it fills `secrets.<its name>`, is listed in SECRET_SETTINGS and masked wherever it appears. */
interface SecretRow<S extends keyof Secrets> extends Spec<string> {
  readonly name: S;
  readonly field: `secrets.${S}`;
  readonly secret: true;
}

/** A field built from several settings or fields by a named function below the table. */
interface DerivedRow<F extends Field> {
  readonly field: F;
  readonly derive: (context: Context) => FieldType<F>;
}

/** A setting's row, its variable named: `read('PORT').into('port', { … })`. */
interface RowStart<N extends string> {
  readonly name: N;
  /** The setting fills `field` as `spec` says. */
  into<F extends Field>(field: F, spec: Spec<FieldType<F>>): SettingRow<F>;
  /** The setting is a credential: checked by parseSecret, empty when unset. */
  asSecret<S extends keyof Secrets>(this: RowStart<S>): SecretRow<S>;
}

/** A row of the table: the variable `name`, then what it fills and how. */
export function read<const N extends string>(name: N): RowStart<N> {
  return {
    name,
    into: (field, spec) => ({ name, field, ...spec }),
    asSecret() {
      return { name: this.name, field: `secrets.${this.name}`, parse: parseSecret, default: '', secret: true };
    },
  };
}

/** A row for a field that no one setting fills: `derive` builds it (BROKER_* into brokerUrl). */
export function derived<F extends Field>(field: F, derive: (context: Context) => FieldType<F>): DerivedRow<F> {
  return { field, derive };
}

/** Any row of the table. */
export type Row = { [F in Field]: SettingRow<F> | DerivedRow<F> }[Field] | SecretRow<keyof Secrets>;

/**
 * Reads every row of `rows` in order from `vars` into a Config (not yet frozen). Every bad setting
 * is reported, not only the first: one start-up, one line, all of them, in the rows' order.
 */
export function readSettings(rows: readonly Row[], vars: Env, facts: ParseFacts<unknown>): Config {
  const problems: ConfigError[] = [];
  const values: Record<string, unknown> = {};
  const context: Context = {
    ...facts,
    earlier: values as Values,
    read: (name) => {
      const value = vars[name];
      return value === undefined || value === '' ? undefined : value;
    },
    check: <T>(parse: () => T): T => {
      try {
        return parse();
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        problems.push(err);
        return undefined as T;
      }
    },
  };
  // Each row was type-checked where it was written; here they are read alike.
  for (const row of rows as readonly AnyRow[]) values[row.field] = context.check(() => fill(row, context));
  if (problems.length === 1) throw problems[0]!;
  if (problems.length > 1) throw new ConfigErrors(problems);
  return nest(values as Values);
}

/** A row as the reader sees it: the types the table was checked with, erased. */
type AnyRow =
  | { readonly field: Field; readonly derive: (context: Context) => unknown }
  | {
    readonly name: string;
    readonly field: Field;
    readonly parse: (setting: string, text: string, facts: ParseFacts<unknown> & { readonly bounds?: Bounds }) => unknown;
    readonly default: unknown;
    readonly bounds?: Bounds;
  };

/** The value a row gives its field. */
function fill(row: AnyRow, context: Context): unknown {
  if ('derive' in row) return row.derive(context);
  const facts = { dir: context.dir, cores: context.cores, bounds: row.bounds };
  const parse = (text: string) => row.parse(row.name, text, facts);
  const text = context.read(row.name);
  if (text !== undefined) return parse(text);
  return row.default instanceof ComputedDefault ? row.default.compute(context, parse) : row.default;
}

/** The flat fields as a Config: `jwt.tokenTtl` becomes `jwt: { tokenTtl }`. */
function nest(values: Values): Config {
  const config: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(values)) {
    const dot = field.indexOf('.');
    if (dot === -1) config[field] = value;
    else ((config[field.slice(0, dot)] ??= {}) as Record<string, unknown>)[field.slice(dot + 1)] = value;
  }
  return config as unknown as Config;
}
