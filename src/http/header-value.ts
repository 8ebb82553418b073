/**
 * One header's text: Node gives a repeated field as an array (and outgoing values may be
 * numbers); RFC 9110 5.3 joins a list field's lines with a comma.
 */
export function headerText(value: string | number | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'object' ? value.join(', ') : String(value);
}
