// The name of generate's cache folder in the output folder (cache.ts), apart so that the command's
// declaration does not load the cache.

/** The cache folder's name in the output folder. */
export const CACHE_DIR = '.crdgen-cache';
