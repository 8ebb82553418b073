/**
 * Content types of served files, from the file name's extension (case-insensitive).
 * Text types carry `; charset=utf-8`; an unknown extension is `application/octet-stream`,
 * which, with `X-Content-Type-Options: nosniff`, browsers never render.
 */

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

const TEXT = '; charset=utf-8';

/** Extension (lower case, no dot) -> media type. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: `text/html${TEXT}`,
  htm: `text/html${TEXT}`,
  css: `text/css${TEXT}`,
  // RFC 9239: text/javascript is the one media type for JavaScript, modules included.
  js: `text/javascript${TEXT}`,
  mjs: `text/javascript${TEXT}`,
  txt: `text/plain${TEXT}`,
  csv: `text/csv${TEXT}`,
  md: `text/markdown${TEXT}`,
  xml: `application/xml${TEXT}`,
  // RFC 8259 11: JSON is UTF-8 and application/json defines no charset parameter.
  json: 'application/json',
  map: 'application/json',
  webmanifest: 'application/manifest+json',
  svg: `image/svg+xml${TEXT}`,
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
  ico: 'image/vnd.microsoft.icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  pdf: 'application/pdf',
  wasm: 'application/wasm',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
};

/** The Content-Type of a file name: `poster.JPG` -> `image/jpeg`, `README` -> octet-stream. */
export function contentTypeFor(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  // A leading dot is not an extension (`.env`); dotfiles are never served anyway.
  if (dot <= 0) return DEFAULT_CONTENT_TYPE;
  const extension = fileName.slice(dot + 1).toLowerCase();
  return Object.hasOwn(CONTENT_TYPES, extension) ? CONTENT_TYPES[extension]! : DEFAULT_CONTENT_TYPE;
}
