// The shared behavioural suite on the generated fake clientset (in-memory tracker).
import { clientsetBehaviour } from './behaviour.js';
import { loadGenerated } from './support.js';

clientsetBehaviour('generated fake clientset', loadGenerated, async (g) => {
  const cs = g.createFakeClientset();
  return { clientset: cs, close: async () => cs.tracker().stopWatches() };
});
