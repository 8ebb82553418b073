/** The errors of unusable settings: one line each, naming the setting, never echoing a secret. */

/** A setting with an unusable value; the message is one line fit for a start-up failure. */
export class ConfigError extends Error {
  readonly setting: string;
  constructor(setting: string, problem: string) {
    super(`Invalid setting ${setting}: ${problem}`);
    this.name = 'ConfigError';
    this.setting = setting;
  }
}

/** Several unusable settings at once, named in one line (values never shown). */
export class ConfigErrors extends ConfigError {
  readonly settings: readonly string[];
  readonly errors: readonly ConfigError[];
  constructor(errors: readonly ConfigError[]) {
    super(errors.map((e) => e.setting).join(', '), '');
    this.message = `Invalid settings (${errors.length}): ${errors.map((e) => e.message.replace(/^Invalid setting /, '')).join('; ')}`;
    this.name = 'ConfigErrors';
    this.settings = errors.map((e) => e.setting);
    this.errors = errors;
  }
}
