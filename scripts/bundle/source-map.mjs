// Joins the source maps of the bundled modules into one plain source map (version 3): Node 20
// ignores index maps ("sections"), so a stack trace under --enable-source-maps would otherwise
// point into the bundle rather than at src/*.ts. Mappings are base64 VLQ, each field relative to
// the one before it, so the modules' mappings are decoded to absolute values, shifted by their
// line offset and source and name indices, and encoded again.

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

/** The segments of each generated line: `[column, source, line, column, name?]`, absolute. */
export function decodeMappings(mappings) {
  const lines = [];
  const state = [0, 0, 0, 0, 0];
  for (const line of mappings.split(';')) {
    const segments = [];
    state[0] = 0; // the generated column starts again on each line
    for (const text of line.split(',')) {
      if (text === '') continue;
      const fields = decodeVlqs(text);
      for (let i = 0; i < fields.length; i++) state[i] += fields[i];
      segments.push(state.slice(0, fields.length));
    }
    lines.push(segments);
  }
  return lines;
}

function decodeVlqs(text) {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const c of text) {
    const digit = DIGIT.get(c);
    if (digit === undefined) throw new SyntaxError(`source map: "${c}" is not base64`);
    value += (digit & 31) * 2 ** shift;
    shift += 5;
    if ((digit & 32) === 0) {
      values.push(value % 2 === 1 ? -(value - 1) / 2 : value / 2);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

function encodeVlq(value) {
  let rest = value < 0 ? -value * 2 + 1 : value * 2;
  let text = '';
  do {
    const digit = rest % 32;
    rest = Math.floor(rest / 32);
    text += BASE64[rest > 0 ? digit | 32 : digit];
  } while (rest > 0);
  return text;
}

/** The inverse of decodeMappings. */
export function encodeMappings(lines) {
  const state = [0, 0, 0, 0, 0];
  return lines.map((segments) => {
    state[0] = 0;
    return segments.map((segment) => {
      const text = segment.map((v, i) => encodeVlq(v - state[i])).join('');
      for (let i = 0; i < segment.length; i++) state[i] = segment[i];
      return text;
    }).join(',');
  }).join(';');
}

/** One map from `{ line, map }` parts, each map placed from generated line `line` (0-based) on. */
export function joinSourceMaps(file, parts) {
  const sources = [];
  const names = [];
  const lines = [];
  for (const { line, map } of parts) {
    const sourceBase = sources.length;
    const nameBase = names.length;
    sources.push(...map.sources);
    names.push(...(map.names ?? []));
    const decoded = decodeMappings(map.mappings);
    while (lines.length < line) lines.push([]);
    decoded.forEach((segments, i) => {
      lines[line + i] = segments.map(([column, source, ...rest]) => {
        if (source === undefined) return [column];
        const [originalLine, originalColumn, name] = rest;
        return name === undefined
          ? [column, source + sourceBase, originalLine, originalColumn]
          : [column, source + sourceBase, originalLine, originalColumn, name + nameBase];
      });
    });
  }
  for (let i = 0; i < lines.length; i++) lines[i] ??= [];
  return { version: 3, file, sources, names, mappings: encodeMappings(lines) };
}
