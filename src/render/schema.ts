/**
 * The poster spec as a JSON Schema (2020-12), built from the validator's own limits and
 * defaults so the two cannot drift apart. What a schema cannot say (text is NFC-normalised
 * before its length is counted; lone surrogates are refused) is said in the descriptions.
 */
import { DEFAULTS, LIMITS } from './spec.js';
import { POSTER_HEIGHT, POSTER_WIDTH } from './poster.js';
import { GRADIENT_ANGLE_CONVENTION } from './draw/gradient.js';

/** Where the schema is served below SCHEMA_BASE. */
export const POSTER_SCHEMA_PATH = '1.0/poster.json';

const HEX_COLOR = { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' } as const;
/** No C0/C1 control characters or DEL. */
const NO_CONTROLS = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';
/** No control characters but line breaks (CR, LF). */
const NO_CONTROLS_BUT_BREAKS = '^[^\\u0000-\\u0009\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$';

function color(description: string, fallback?: string) {
  return { ...HEX_COLOR, description: `${description} Written #rrggbb (any case).`, ...(fallback ? { default: fallback } : {}) };
}

function opacity() {
  return { type: 'number', minimum: 0, maximum: 1, default: 1, description: 'Opacity of the shape, 0 (invisible) to 1 (opaque).' };
}

function coordinate(description: string) {
  const c = LIMITS.coordinate;
  return { type: 'number', minimum: -c, maximum: c, description: `${description}, in poster pixels (origin top-left, y down; may lie up to ${c} pixels outside the poster).` };
}

function size(description: string, max: number = LIMITS.coordinate) {
  return { type: 'number', exclusiveMinimum: 0, maximum: max, description: `${description}, in pixels (greater than 0).` };
}

function shape(kind: string, description: string, properties: Record<string, object>, required: string[]) {
  return {
    type: 'object',
    description,
    properties: { kind: { const: kind }, ...properties, color: color('Fill colour.'), opacity: opacity() },
    required: ['kind', ...required, 'color'],
    additionalProperties: false,
  };
}

/** The JSON Schema of a poster spec (the input of `POST <SERVICE_BASE>posters` and `poster --spec`). */
export function posterSchema(id: string): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: id,
    title: 'Poster spec 1.0',
    description: `A ${POSTER_WIDTH} × ${POSTER_HEIGHT} JPEG poster: a background gradient, shapes over it, and text (title, subtitle, body) over both. Text lengths count Unicode characters after NFC normalisation; text must be valid Unicode (no lone surrogates). Every problem of a spec is reported at once, each with its JSON pointer.`,
    type: 'object',
    properties: {
      ...textProperties(),
      align: { enum: ['center', 'left'], default: DEFAULTS.align, description: 'How text lines are aligned.' },
      background: backgroundSchema(),
      textColor: color('Colour of the title and body.', DEFAULTS.textColor),
      accentColor: color('Colour of the subtitle and accents.', DEFAULTS.accentColor),
      shapes: shapesSchema(),
      quality: { type: 'integer', minimum: 1, maximum: 100, default: DEFAULTS.quality, description: 'JPEG quality (IJG scale): higher is sharper and larger.' },
    },
    required: ['title'],
    additionalProperties: false,
  };
}

/** The three texts: title, subtitle, body. */
function textProperties() {
  return {
    title: {
      type: 'string',
      minLength: 1,
      maxLength: LIMITS.titleLength,
      allOf: [{ pattern: NO_CONTROLS }, { pattern: '\\S' }],
      description: `The title, large, auto-fitted to the width: 1 to ${LIMITS.titleLength} characters, not only spaces, no line breaks or control characters.`,
    },
    subtitle: {
      type: 'string',
      maxLength: LIMITS.subtitleLength,
      pattern: NO_CONTROLS,
      default: '',
      description: `The subtitle, in the accent colour under the title: up to ${LIMITS.subtitleLength} characters, no line breaks.`,
    },
    body: {
      type: 'string',
      maxLength: LIMITS.bodyLength,
      pattern: NO_CONTROLS_BUT_BREAKS,
      default: '',
      description: `Body text, word-wrapped: up to ${LIMITS.bodyLength} characters; "\\n" (or "\\r\\n") starts a new line.`,
    },
  };
}

function backgroundSchema() {
  return {
    type: 'object',
    description: 'A linear gradient over the whole poster.',
    properties: {
      from: color('Colour where the gradient starts.'),
      to: color('Colour where the gradient ends.'),
      angle: { type: 'number', minimum: 0, maximum: 360, default: DEFAULTS.background.angle, description: `Direction in degrees (${GRADIENT_ANGLE_CONVENTION}).` },
    },
    required: ['from', 'to'],
    additionalProperties: false,
    default: DEFAULTS.background,
  };
}

function shapesSchema() {
  return {
    type: 'array',
    maxItems: LIMITS.shapes,
    description: `Up to ${LIMITS.shapes} shapes, drawn in order over the background and under the text. Absent: three faint default circles; [] draws none.`,
    items: { oneOf: [rectSchema(), circleSchema(), lineSchema()] },
  };
}

function rectSchema() {
  return shape('rect', 'A rectangle, optionally with rounded corners.', {
    x: coordinate('Left edge'),
    y: coordinate('Top edge'),
    width: size('Width'),
    height: size('Height'),
    radius: { type: 'number', minimum: 0, maximum: LIMITS.coordinate, default: 0, description: 'Corner radius in pixels.' },
  }, ['x', 'y', 'width', 'height']);
}

function circleSchema() {
  return shape('circle', 'A filled disc.', { cx: coordinate('Centre x'), cy: coordinate('Centre y'), r: size('Radius') }, ['cx', 'cy', 'r']);
}

function lineSchema() {
  return shape('line', 'A straight stroke with round ends.', {
    x1: coordinate('Start x'),
    y1: coordinate('Start y'),
    x2: coordinate('End x'),
    y2: coordinate('End y'),
    width: size('Stroke width', LIMITS.lineWidth),
  }, ['x1', 'y1', 'x2', 'y2', 'width']);
}
