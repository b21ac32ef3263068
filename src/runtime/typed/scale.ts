// The scale subresource (autoscaling/v1 Scale) of a resource: getScale/updateScale,
// as client-gen emits them for kinds with `subresources.scale`.
import type { ObjectMeta } from '../meta/types.js';
import type { GetOptions, UpdateOptions } from '../client/resource.js';

/** autoscaling/v1 Scale: what `/scale` reads and writes. */
export interface Scale {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    /** Desired number of instances. */
    replicas?: number;
  };
  status?: {
    /** Actual number of observed instances. */
    replicas: number;
    /** Label query over the pods, in string form (`labelSelector=` syntax). */
    selector?: string;
  };
}

/** Reads and writes the scale subresource of one resource. */
export interface ScaleClient {
  /** GET `<object>/scale`. */
  getScale(name: string, options?: GetOptions): Promise<Scale>;
  /** PUT `<object>/scale`; the body's metadata.resourceVersion guards the update. */
  updateScale(name: string, scale: Scale, options?: UpdateOptions): Promise<Scale>;
}
