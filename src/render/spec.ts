/**
 * The poster spec: what a poster says and how it looks, as JSON. `validatePosterSpec` checks an
 * untrusted value and reports every problem at once, each with the JSON pointer (RFC 6901) of
 * the offending member; a valid input comes back normalised (defaults applied, text NFC,
 * colours lower-case), which is also the form the content hash is computed from.
 */

import { unreachable } from '../util/unreachable.js';

/** A colour as `#rrggbb`. */
export type HexColor = string;

export interface RectShape {
  readonly kind: 'rect';
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly color: HexColor;
  /** Corner radius in pixels; default 0. */
  readonly radius: number;
  /** 0..1; default 1. */
  readonly opacity: number;
}

export interface CircleShape {
  readonly kind: 'circle';
  readonly cx: number;
  readonly cy: number;
  readonly r: number;
  readonly color: HexColor;
  readonly opacity: number;
}

export interface LineShape {
  readonly kind: 'line';
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
  /** Stroke width in pixels. */
  readonly width: number;
  readonly color: HexColor;
  readonly opacity: number;
}

/** A shape in poster pixels (origin top-left, y down), drawn over the background, under the text. */
export type Shape = RectShape | CircleShape | LineShape;

/** What makes a spec a `PosterSpec`: only `validatePosterSpec` hands one out. */
declare const validated: unique symbol;

/**
 * A valid, normalised spec: every field present. Branded, so a value that did not come out of
 * `validatePosterSpec` is no `PosterSpec`: it is validated once, at the edge, and its type
 * crosses the render pool and the worker with it.
 */
export type PosterSpec = NormalizedSpec & { readonly [validated]: true };

/** The members of a valid, normalised spec. */
export interface NormalizedSpec {
  readonly title: string;
  /** '' when there is none. */
  readonly subtitle: string;
  /** '' when there is none; `\n` starts a new line. */
  readonly body: string;
  readonly align: 'center' | 'left';
  readonly background: { readonly from: HexColor; readonly to: HexColor; readonly angle: number };
  readonly textColor: HexColor;
  readonly accentColor: HexColor;
  /** `defaultShapes(textColor, accentColor)` when the input has no `shapes`. */
  readonly shapes: readonly Shape[];
  /** JPEG quality 1..100. */
  readonly quality: number;
}

type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

/** What callers may write: the spec with every field but `title` optional. */
export interface PosterSpecInput {
  title: string;
  subtitle?: string;
  body?: string;
  align?: 'center' | 'left';
  background?: { from: HexColor; to: HexColor; angle?: number };
  textColor?: HexColor;
  accentColor?: HexColor;
  shapes?: Array<Optional<RectShape, 'radius' | 'opacity'> | Optional<CircleShape, 'opacity'> | Optional<LineShape, 'opacity'>>;
  quality?: number;
}

/** One problem: where (JSON pointer into the input) and why. */
export interface SpecError {
  readonly pointer: string;
  readonly reason: string;
}

/**
 * A valid spec, or every problem with its pointer. The list is `errors` here, in
 * `PosterSpecError.errors` and in the API's 422 document: one name wherever it shows.
 */
export type ValidationResult =
  | { readonly ok: true; readonly value: PosterSpec }
  | { readonly ok: false; readonly errors: readonly SpecError[] };

export const LIMITS = {
  titleLength: 120,
  subtitleLength: 200,
  bodyLength: 1000,
  shapes: 32,
  /** Shape coordinates may reach this far outside the 1125 × 2436 poster. */
  coordinate: 10_000,
  lineWidth: 1000,
} as const;

export const DEFAULTS = {
  background: { from: '#0b1026', to: '#3a1c71', angle: 160 },
  textColor: '#f8fafc',
  accentColor: '#fbbf24',
  align: 'center',
  quality: 85,
} as const;

/**
 * The shapes of a spec that has no `shapes`: two faint overlapping discs of the text colour
 * off the top-right corner and one of the accent colour off the bottom-left. `shapes: []`
 * draws none.
 */
export function defaultShapes(textColor: HexColor, accentColor: HexColor): Shape[] {
  return [
    { kind: 'circle', cx: 980, cy: 180, r: 520, color: textColor, opacity: 0.05 },
    { kind: 'circle', cx: 1060, cy: 120, r: 300, color: textColor, opacity: 0.05 },
    { kind: 'circle', cx: 60, cy: 2360, r: 300, color: accentColor, opacity: 0.12 },
  ];
}

const ROOT_MEMBERS: readonly string[] = ['title', 'subtitle', 'body', 'align', 'background', 'textColor', 'accentColor', 'shapes', 'quality'];
const BACKGROUND_MEMBERS: readonly string[] = ['from', 'to', 'angle'];
const SHAPE_MEMBERS: Readonly<Record<Shape['kind'], readonly string[]>> = {
  rect: ['kind', 'x', 'y', 'width', 'height', 'radius', 'color', 'opacity'],
  circle: ['kind', 'cx', 'cy', 'r', 'color', 'opacity'],
  line: ['kind', 'x1', 'y1', 'x2', 'y2', 'width', 'color', 'opacity'],
};

/**
 * Checks `input` against every rule and reports all problems: unknown members of an object
 * first, then its members in the order the spec lists them.
 */
export function validatePosterSpec(input: unknown): ValidationResult {
  const errors: SpecError[] = [];
  const c = new Checker(errors);
  if (!isObject(input)) {
    errors.push({ pointer: '', reason: 'must be a JSON object' });
    return { ok: false, errors };
  }
  c.unknownMembers(input, '', ROOT_MEMBERS);
  const title = c.text(input, 'title', '', { required: true, max: LIMITS.titleLength, lineBreaks: false });
  const subtitle = c.text(input, 'subtitle', '', { required: false, max: LIMITS.subtitleLength, lineBreaks: false });
  const body = c.text(input, 'body', '', { required: false, max: LIMITS.bodyLength, lineBreaks: true });
  const align = c.oneOf(input, 'align', '', ['center', 'left'] as const) ?? DEFAULTS.align;
  const background = c.background(input);
  const textColor = c.color(input, 'textColor', '', false) ?? DEFAULTS.textColor;
  const accentColor = c.color(input, 'accentColor', '', false) ?? DEFAULTS.accentColor;
  const shapes = c.shapes(input) ?? defaultShapes(textColor, accentColor);
  const quality = c.number(input, 'quality', '', { required: false, min: 1, max: 100, integer: true }) ?? DEFAULTS.quality;
  if (errors.length > 0) return { ok: false, errors };
  const spec: NormalizedSpec = { title: title!, subtitle: subtitle ?? '', body: body ?? '', align, background, textColor, accentColor, shapes, quality };
  return { ok: true, value: spec as PosterSpec };
}

/** RFC 6901: `~` -> `~0`, `/` -> `~1`. */
export function pointerTo(parent: string, key: string | number): string {
  return `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// C0 and C1 controls, DEL; lone surrogates (not encodable as UTF-8).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
const LONE_SURROGATE = /\p{Cs}/u;
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

/** Collects problems while reading members; each reader returns undefined for absent or bad values. */
class Checker {
  readonly #errors: SpecError[];

  constructor(errors: SpecError[]) {
    this.#errors = errors;
  }

  fail(pointer: string, reason: string): undefined {
    this.#errors.push({ pointer, reason });
    return undefined;
  }

  unknownMembers(object: Record<string, unknown>, at: string, known: readonly string[]): void {
    for (const key of Object.keys(object)) {
      if (!known.includes(key)) this.fail(pointerTo(at, key), `is not a known member (expected one of: ${known.join(', ')})`);
    }
  }

  /** Text, NFC; `\r\n` and `\r` become `\n` where line breaks are allowed. */
  text(
    object: Record<string, unknown>, key: string, at: string, rule: { required: boolean; max: number; lineBreaks: boolean },
  ): string | undefined {
    const pointer = pointerTo(at, key);
    const value = object[key];
    if (value === undefined) return rule.required ? this.fail(pointer, 'is required') : undefined;
    if (typeof value !== 'string') return this.fail(pointer, 'must be a string');
    if (LONE_SURROGATE.test(value)) return this.fail(pointer, 'must be valid Unicode (it has a lone surrogate)');
    let text = value.normalize('NFC');
    if (rule.lineBreaks) text = text.replace(/\r\n?/g, '\n');
    const controls = rule.lineBreaks ? text.replace(/\n/g, '') : text;
    if (CONTROL.test(controls)) {
      return this.fail(pointer, rule.lineBreaks ? 'must not contain control characters other than line breaks' : 'must not contain control characters or line breaks');
    }
    const length = Array.from(text).length;
    if (length > rule.max) return this.fail(pointer, `must be at most ${rule.max} characters (it has ${length})`);
    if (rule.required && text.trim() === '') return this.fail(pointer, `must have 1 to ${rule.max} characters, not only spaces`);
    return text;
  }

  oneOf<T extends string>(object: Record<string, unknown>, key: string, at: string, allowed: readonly T[]): T | undefined {
    const value = object[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      return this.fail(pointerTo(at, key), `must be one of: ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
    }
    return value as T;
  }

  color(object: Record<string, unknown>, key: string, at: string, required: boolean): HexColor | undefined {
    const pointer = pointerTo(at, key);
    const value = object[key];
    if (value === undefined) return required ? this.fail(pointer, 'is required') : undefined;
    if (typeof value !== 'string' || !HEX_COLOR.test(value)) return this.fail(pointer, 'must be a colour written #rrggbb');
    return value.toLowerCase();
  }

  number(
    object: Record<string, unknown>, key: string, at: string, rule: { required: boolean; min: number; max: number; integer?: boolean; above?: boolean },
  ): number | undefined {
    const pointer = pointerTo(at, key);
    const value = object[key];
    if (value === undefined) return rule.required ? this.fail(pointer, 'is required') : undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) return this.fail(pointer, 'must be a number');
    if (rule.integer && !Number.isInteger(value)) return this.fail(pointer, 'must be an integer');
    const low = rule.above ? value <= rule.min : value < rule.min;
    if (low || value > rule.max) {
      return this.fail(pointer, `must be ${rule.above ? 'greater than' : 'at least'} ${rule.min} and at most ${rule.max}`);
    }
    return value === 0 ? 0 : value; // -0 -> 0, so it hashes like 0
  }

  background(input: Record<string, unknown>): PosterSpec['background'] {
    const value = input.background;
    if (value === undefined) return DEFAULTS.background;
    if (!isObject(value)) return this.fail('/background', 'must be an object with from, to and optional angle') ?? DEFAULTS.background;
    this.unknownMembers(value, '/background', BACKGROUND_MEMBERS);
    const from = this.color(value, 'from', '/background', true);
    const to = this.color(value, 'to', '/background', true);
    const angle = this.number(value, 'angle', '/background', { required: false, min: 0, max: 360 });
    return { from: from ?? '', to: to ?? '', angle: angle ?? DEFAULTS.background.angle };
  }

  /** The shapes, or undefined when absent (the caller applies the default). */
  shapes(input: Record<string, unknown>): Shape[] | undefined {
    const value = input.shapes;
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) return this.fail('/shapes', 'must be an array') ?? [];
    if (value.length > LIMITS.shapes) this.fail('/shapes', `must have at most ${LIMITS.shapes} items (it has ${value.length})`);
    const shapes: Shape[] = [];
    value.forEach((item, index) => {
      const shape = this.shape(item, pointerTo('/shapes', index));
      if (shape !== undefined) shapes.push(shape);
    });
    return shapes;
  }

  shape(item: unknown, at: string): Shape | undefined {
    if (!isObject(item)) return this.fail(at, 'must be an object');
    const kind = item.kind;
    if (kind === undefined) return this.fail(pointerTo(at, 'kind'), 'is required');
    if (kind !== 'rect' && kind !== 'circle' && kind !== 'line') return this.fail(pointerTo(at, 'kind'), 'must be one of: "rect", "circle", "line"');
    this.unknownMembers(item, at, SHAPE_MEMBERS[kind]);
    const C = LIMITS.coordinate;
    const coordinate = (key: string) => this.number(item, key, at, { required: true, min: -C, max: C });
    const size = (key: string) => this.number(item, key, at, { required: true, min: 0, max: C, above: true });
    // Members are checked in the order they are listed in SHAPE_MEMBERS.
    const paint = () => ({
      color: this.color(item, 'color', at, true),
      opacity: this.number(item, 'opacity', at, { required: false, min: 0, max: 1 }) ?? 1,
    });
    switch (kind) {
      case 'rect': {
        const [x, y, width, height] = [coordinate('x'), coordinate('y'), size('width'), size('height')];
        const radius = this.number(item, 'radius', at, { required: false, min: 0, max: C }) ?? 0;
        const { color, opacity } = paint();
        return allDefined(x, y, width, height, color) ? { kind, x: x!, y: y!, width: width!, height: height!, color: color!, radius, opacity } : undefined;
      }
      case 'circle': {
        const [cx, cy, r] = [coordinate('cx'), coordinate('cy'), size('r')];
        const { color, opacity } = paint();
        return allDefined(cx, cy, r, color) ? { kind, cx: cx!, cy: cy!, r: r!, color: color!, opacity } : undefined;
      }
      case 'line': {
        const [x1, y1, x2, y2] = [coordinate('x1'), coordinate('y1'), coordinate('x2'), coordinate('y2')];
        const width = this.number(item, 'width', at, { required: true, min: 0, max: LIMITS.lineWidth, above: true });
        const { color, opacity } = paint();
        return allDefined(x1, y1, x2, y2, width, color) ? { kind, x1: x1!, y1: y1!, x2: x2!, y2: y2!, width: width!, color: color!, opacity } : undefined;
      }
      default:
        return unreachable(kind);
    }
  }
}

function allDefined(...values: unknown[]): boolean {
  return values.every((v) => v !== undefined);
}


/** JSON with object keys sorted at every level: the canonical text of a normalised spec. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
