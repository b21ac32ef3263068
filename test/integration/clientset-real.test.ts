// The shared behavioural suite on the generated clientset against crdgen/testing's API server.
import { startTestApiServer } from '../../src/testing/index.js';
import { clientsetBehaviour } from './behaviour.js';
import { DM_CRD, loadGenerated } from './support.js';

clientsetBehaviour('generated clientset on crdgen/testing', loadGenerated, async (g) => {
  const server = await startTestApiServer({ crds: [DM_CRD] });
  const cs = await g.Clientset.fromKubeConfig(server.kubeconfigPath);
  return { clientset: cs, close: () => server.stop() };
});
