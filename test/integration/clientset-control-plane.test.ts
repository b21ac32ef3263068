// The shared behavioural suite on the generated clientset against the real kube-apiserver
// (etcd + kube-apiserver v1.37, as envtest runs them): what the fake and crdgen/testing are
// judged by.
import { realBackend } from '../support/backends.js';
import { clientsetBehaviour } from './behaviour.js';
import { DM_CRD, loadGenerated } from './support.js';

clientsetBehaviour('generated clientset on the real kube-apiserver', loadGenerated, async (g) => {
  const server = await realBackend.start({ crds: [DM_CRD] });
  const cs = await g.Clientset.fromKubeConfig(server.kubeconfigPath);
  return { clientset: cs, close: () => server.stop() };
});
