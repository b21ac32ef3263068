// The options of a run checked against the model before any emitter runs: the client options
// (the kinds and verbs they name), the operators (`--controller`, `--owns`, `--starter`, their
// image's base) and their webhooks. Emitters take the options as checked; every problem here is
// a message for the user, which the CLI reports as a usage error before anything is generated.

import type { Model } from '../model/types.js';
import type { EmitContext } from './emitter.js';
import { clientOptionsErrors } from './client-options.js';
import { ControllerOptionsError, planController } from './controller-kinds.js';
import { operatorWebhooks } from './webhooks.js';
import { imageBaseProblem } from './operator-image.js';

/** Every problem of `ctx`'s options against `model`; empty when the emitters may run. */
export function optionErrors(model: Model, ctx: EmitContext): string[] {
  const client = clientOptionsErrors(model, ctx.client);
  if (client.length > 0) return client;
  const out: string[] = [];
  const controllers = ctx.controllers ?? [];
  if ((ctx.owns ?? []).length > 0 && controllers.length === 0)
    out.push('--owns names what a controller owns: give --controller <Kind> too');
  if (ctx.starter !== undefined && controllers.length === 0)
    out.push('--starter names what writes the reconcile.ts of a controller: give --controller <Kind> too');
  const image = imageBaseProblem(ctx.imageBase);
  if (image !== undefined) out.push(image);
  for (const selector of controllers) {
    try {
      const plan = planController(model, ctx, selector);
      if (ctx.webhooks) operatorWebhooks(ctx, plan.ck);
    } catch (e) {
      if (!(e instanceof ControllerOptionsError)) throw e;
      if (!out.includes(e.message)) out.push(e.message);
    }
  }
  return out;
}
