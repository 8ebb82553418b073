/** Colours as the canvas uses them: 8-bit sRGB channels. */

export interface Rgb {
  readonly r: number;
  readonly g: number;
  readonly b: number;
}

/** `#rrggbb` (either case). */
export const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

/** Parses `#rrggbb`; throws TypeError for anything else (specs are validated before drawing). */
export function parseHexColor(hex: string): Rgb {
  if (!HEX_COLOR.test(hex)) throw new TypeError(`not a #rrggbb colour: ${JSON.stringify(hex)}`);
  const n = Number.parseInt(hex.slice(1), 16);
  return { r: n >> 16, g: (n >> 8) & 0xff, b: n & 0xff };
}
