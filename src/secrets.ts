/**
 * Keeping configured secret values out of everything the service shows or writes: log lines,
 * problem documents, error pages and profiles (SPEC 1).
 */
import { MIN_SECRET_LENGTH, SECRET_SETTINGS, type Config } from './config.js';

/** What a secret value is replaced with. */
export const MASK = '******';

/** Shorter values would mask ordinary words; the settings refuse a shorter credential. */
const MIN_MASKED_LENGTH = MIN_SECRET_LENGTH;

/** The non-empty secret values of a config, longest first so one never hides part of another. */
export function secretValuesOf(config: Config): string[] {
  return SECRET_SETTINGS.map((name) => config.secrets[name])
    .filter((value) => value.length >= MIN_MASKED_LENGTH)
    .sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of a secret value (4 characters or more) with the mask. */
export function maskText(text: string, secretValues: readonly string[]): string {
  let masked = text;
  for (const secret of secretValues) {
    if (secret.length >= MIN_MASKED_LENGTH && masked.includes(secret)) masked = masked.split(secret).join(MASK);
  }
  return masked;
}

/**
 * A function that masks the config's secrets in a text; the identity when none is set. Most
 * texts hold no secret: a text shorter than every secret is left at once, and one scan for any
 * of them (a regular expression of the values as literals) answers for the others.
 */
export function createSecretMasker(config: Config): (text: string) => string {
  const values = secretValuesOf(config);
  if (values.length === 0) return (text) => text;
  const shortest = values[values.length - 1]!.length;
  const anySecret = new RegExp(values.map(escapeRegExp).join('|'));
  return (text) => (text.length >= shortest && anySecret.test(text) ? maskText(text, values) : text);
}

/** `text` as a regular expression that matches exactly it. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
