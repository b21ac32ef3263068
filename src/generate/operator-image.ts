// The base image of the generated operator's Dockerfile (`image: { base }` in the config): a
// supported Node.js LTS, on Alpine (the default) or distroless, or any image reference the user
// names. The bundle esbuild writes targets that LTS, so a base of the user's must run it or later.

/** The Node.js major the operator image runs on and its bundle targets (an LTS with security fixes). */
export const OPERATOR_NODE_MAJOR = 22;

/** The bases named by a word, and the images they are. */
export const IMAGE_BASES: Readonly<Record<string, string>> = {
  'node22-alpine': `node:${OPERATOR_NODE_MAJOR}-alpine`,
  // no shell, no package manager; runs as 65532 (nonroot) as kubebuilder's gcr.io/distroless/static:nonroot
  distroless: `gcr.io/distroless/nodejs${OPERATOR_NODE_MAJOR}-debian12:nonroot`,
};

/** The base when the config names none. */
export const DEFAULT_IMAGE_BASE = 'node22-alpine';

/**
 * An image reference as Docker's grammar has it (distribution/reference): an optional registry
 * host[:port], lowercase path components, an optional tag, an optional digest. No whitespace, quote
 * or `$` can pass, so the value cannot add a line or an expansion to the Dockerfile. The config's
 * JSON Schema (image.base) carries the same pattern.
 */
export const IMAGE_REFERENCE =
  /^(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$/;

/** The longest image reference accepted (Docker's limit on a repository name). */
export const IMAGE_REFERENCE_MAX = 255;

/** The final stage of the operator image. */
export interface OperatorImage {
  /** The FROM of the build stage (npm ci, esbuild): always the default LTS on Alpine. */
  build: string;
  /** The FROM of the final stage. */
  base: string;
  /** The node binary of the ENTRYPOINT: `node` on PATH, distroless's /nodejs/bin/node. */
  node: string;
  /** esbuild's `--target`. */
  target: string;
}

/** `base` is a word of {@link IMAGE_BASES} or an image reference. */
export function isImageBase(base: string): boolean {
  return Object.hasOwn(IMAGE_BASES, base) || (base.length <= IMAGE_REFERENCE_MAX && IMAGE_REFERENCE.test(base));
}

/** What is wrong with `base` as `image.base`, for the user; undefined when it is fine. */
export function imageBaseProblem(base: string | undefined): string | undefined {
  if (base === undefined || isImageBase(base)) return undefined;
  return `image base ${JSON.stringify(base)} is not ${Object.keys(IMAGE_BASES).join(', ')} nor an image reference ([registry/]name[:tag][@digest], lowercase name)`;
}

/** The images of the operator's Dockerfile for the config's `image.base` (default {@link DEFAULT_IMAGE_BASE}). */
export function operatorImage(base: string = DEFAULT_IMAGE_BASE): OperatorImage {
  const problem = imageBaseProblem(base);
  if (problem !== undefined) throw new Error(problem);
  const ref = IMAGE_BASES[base] ?? base;
  return {
    build: IMAGE_BASES[DEFAULT_IMAGE_BASE],
    base: ref,
    // the distroless Node.js images have no shell and no node on PATH; their own entrypoint is
    // this binary, named here because the Deployment's args replace an image's CMD
    node: ref.startsWith('gcr.io/distroless/nodejs') ? '/nodejs/bin/node' : 'node',
    target: `node${OPERATOR_NODE_MAJOR}`,
  };
}
