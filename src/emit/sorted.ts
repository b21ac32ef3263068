// Determinism in one place: the comparison lives in the model (src/model/order.ts), where readers
// may use it too; emitters keep importing it from here.
export { compareStrings } from '../model/order.js';
