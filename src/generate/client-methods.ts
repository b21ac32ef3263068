// The methods of a generated typed client, verb by verb: signature pieces and the
// runtime types they need. Decided here, rendered by templates/clientset/*.hbs.
import type { Kind, Verb } from '../model/types.js';
import { tsString } from '../model/naming.js';

/** One method of a typed client. */
export interface ClientMethod {
  name: string;
  doc: string;
  /** Parameter list text. */
  params: string;
  /** Return type text. */
  returns: string;
  /** Arguments passed on to TypedResourceClient. */
  args: string;
  /** Runtime type names the signature uses. */
  runtimeTypes: string[];
}

/**
 * The methods for `verbs` of a kind whose type is `t` and list type `list`, in client-gen order.
 * `rt` maps a runtime type name to the name it is imported as (aliased when a kind takes it).
 */
export function clientMethods(
  kind: Kind,
  verbs: readonly Verb[],
  t: string,
  list: string,
  rt: (name: string) => string = (n) => n,
): ClientMethod[] {
  const apply = `${rt('ApplyConfigurationFor')}<${t}>`;
  const r = rt;
  // what the server returns: the object with its identity present (crdgen/runtime's Stored)
  const scope = tsString(kind.scope);
  const stored = `${r('Stored')}<${t}, ${scope}>`;
  const storedList = `${r('StoredList')}<${list}, ${scope}>`;
  const table: Record<Verb, Omit<ClientMethod, 'name'>> = {
    create: {
      doc: `Creates a ${t}; resolves with the object as stored (uid, resourceVersion, defaults).`,
      params: `obj: ${t}, options?: ${r('CreateOptions')}`,
      returns: `Promise<${stored}>`,
      args: 'obj, options',
      runtimeTypes: ['CreateOptions', 'Stored'],
    },
    update: {
      doc: `Replaces a ${t}; rejects with a Conflict when metadata.resourceVersion is stale.`,
      params: `obj: ${t}, options?: ${r('UpdateOptions')}`,
      returns: `Promise<${stored}>`,
      args: 'obj, options',
      runtimeTypes: ['UpdateOptions', 'Stored'],
    },
    updateStatus: {
      doc: `Replaces the status subresource of a ${t} (changes outside status are ignored).`,
      params: `obj: ${t}, options?: ${r('UpdateOptions')}`,
      returns: `Promise<${stored}>`,
      args: 'obj, options',
      runtimeTypes: ['UpdateOptions', 'Stored'],
    },
    delete: {
      doc: `Deletes the ${t} \`name\`.`,
      params: `name: string, options?: ${r('DeleteOptions')}`,
      returns: 'Promise<void>',
      args: 'name, options',
      runtimeTypes: ['DeleteOptions'],
    },
    deleteCollection: {
      doc: `Deletes every ${t} matching the options' selectors.`,
      params: `options?: ${r('TypedDeleteCollectionOptions')}`,
      returns: 'Promise<void>',
      args: 'options',
      runtimeTypes: ['TypedDeleteCollectionOptions'],
    },
    get: {
      doc: `Reads the ${t} \`name\`; rejects with NotFound when it does not exist.`,
      params: `name: string, options?: ${r('GetOptions')}`,
      returns: `Promise<${stored}>`,
      args: 'name, options',
      runtimeTypes: ['GetOptions', 'Stored'],
    },
    list: {
      doc: `Lists ${t} objects (labelSelector may be text or a Selector).`,
      params: `options?: ${r('TypedListOptions')}`,
      returns: `Promise<${storedList}>`,
      args: 'options',
      runtimeTypes: ['TypedListOptions', 'StoredList'],
    },
    watch: {
      doc: `Watches ${t} objects; iterate the result for events, \`stop()\` it when done.`,
      params: `options?: ${r('TypedListOptions')}`,
      returns: `Promise<${r('TypedWatch')}<${stored}>>`,
      args: 'options',
      runtimeTypes: ['TypedListOptions', 'TypedWatch', 'Stored'],
    },
    patch: {
      doc: `Patches the ${t} \`name\` (PatchType.Merge, JSON or Apply).`,
      params: `name: string, patchType: ${r('PatchType')}, data: unknown, options?: ${r('PatchOptions')}`,
      returns: `Promise<${stored}>`,
      args: 'name, patchType, data, options',
      runtimeTypes: ['PatchType', 'PatchOptions', 'Stored'],
    },
    apply: {
      doc: `Server-side apply of a ${t} apply configuration (options.fieldManager is required).`,
      params: `config: ${apply}, options: ${r('ApplyOptions')}`,
      returns: `Promise<${stored}>`,
      args: 'config, options',
      runtimeTypes: ['ApplyOptions', 'Stored'],
    },
    applyStatus: {
      doc: `Server-side apply to the status subresource of a ${t}.`,
      params: `config: ${apply}, options: ${r('ApplyOptions')}`,
      returns: `Promise<${stored}>`,
      args: 'config, options',
      runtimeTypes: ['ApplyOptions', 'Stored'],
    },
  };
  const out: ClientMethod[] = verbs.map((v) => ({ name: v, ...table[v] }));
  if (kind.subresources.scale) {
    if (verbs.includes('get')) {
      out.push({
        name: 'getScale',
        doc: `Reads the scale subresource (autoscaling/v1 Scale) of the ${t} \`name\`.`,
        params: `name: string, options?: ${r('GetOptions')}`,
        returns: `Promise<${r('Scale')}>`,
        args: 'name, options',
        runtimeTypes: ['GetOptions', 'Scale'],
      });
    }
    if (verbs.includes('update')) {
      out.push({
        name: 'updateScale',
        doc: `Replaces the scale subresource of the ${t} \`name\`.`,
        params: `name: string, scale: ${r('Scale')}, options?: ${r('UpdateOptions')}`,
        returns: `Promise<${r('Scale')}>`,
        args: 'name, scale, options',
        runtimeTypes: ['UpdateOptions', 'Scale'],
      });
    }
  }
  return out;
}
