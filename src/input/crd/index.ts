// The CRD reader's public surface.

export {
  readCrdInputs,
  decodeText,
  decodeChecked,
  checkSource,
  checkText,
  checkedCrds,
  keepChecked,
  packChecked,
  unpackChecked,
  buildModel,
  lightKinds,
  lightModel,
  type CrdSource,
  type ReadResult,
  type CheckedCrd,
  type CheckedSource,
  type BuiltModel,
  type PackedCrds,
  type RenamedKind,
} from './read.js';
export {
  checkCrdObject,
  checkCrd,
  checkCrdRequest,
  CRD_API_VERSIONS,
  dns1035LabelErrors,
  dns1123SubdomainErrors,
} from './check.js';
export { normalizeVersions } from './check-v1beta1.js';
export { OPENAPI_TYPES } from './check-schema.js';
export { MAX_ALIAS_COUNT } from './yaml-source.js';
