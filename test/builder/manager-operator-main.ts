// An operator on the controller builder, run by runOperator (flags, leader election, metrics,
// probes): keeps one ConfigMap per Widget. Spawned by manager-operator.test.ts.
import {
  ConfigMapResource,
  newControllerManagedBy,
  runOperator,
  setControllerReference,
  isNotFound,
} from '../../src/runtime/index.js';
import { WidgetResource } from './support.js';

process.exitCode = await runOperator({
  name: 'widget-operator',
  setupWithManager: (manager) => {
    newControllerManagedBy(manager)
      .for(WidgetResource)
      .owns(ConfigMapResource)
      .complete(async (req, ctx) => {
        const w = await ctx.client
          .get(WidgetResource, req)
          .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
        if (!w) return;
        const { operation } = await ctx.client.createOrUpdate(
          ConfigMapResource,
          { namespace: req.namespace, name: `${req.name}-config` },
          (cm) => {
            cm.data = { size: String(w.spec?.size ?? 0) };
            setControllerReference(w, cm, WidgetResource);
          },
        );
        if (operation !== 'unchanged') ctx.recorder.event(w, 'Normal', 'Synced', `ConfigMap ${operation}`);
      });
  },
});
