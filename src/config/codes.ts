// Diagnostic codes of config files (merged into the catalogue in src/diagnostics/codes.ts).

/** Code → short title for config problems. */
export const CONFIG_CODES = {
  CFG001: 'cannot read config file',
  CFG002: 'config file syntax error',
  CFG003: 'invalid config',
} as const;
