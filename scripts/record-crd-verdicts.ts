// `npm run crd-verdicts:record`: sends every case of the CRD differential suite
// (test/crd-verdicts/cases.ts) to the real kube-apiserver (dry run, fieldValidation=Strict, as
// kubectl sends it) and writes its answers to test/crd-verdicts/recording.json, which the fast
// suite checks crdgen against. Review the diff of the recording like code.
import { startControlPlane } from '../src/testing/index.js';
import { controlPlaneAssets } from '../test/support/assets.js';
import { record, RECORDING_FILE, writeRecording } from '../test/crd-verdicts/recording.js';

const started = Date.now();
const cp = await startControlPlane({ assets: controlPlaneAssets(), log: (l) => console.error(l) });
try {
  const rec = await record(cp, (s) => console.error(`recorded ${s}`));
  writeRecording(rec);
  const refused = rec.cases.filter((c) => c.status !== 201).length;
  console.log(
    `recorded ${rec.cases.length} cases from kube-apiserver ${rec.apiserver} (${refused} refused) into ${RECORDING_FILE} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
} finally {
  await cp.stop();
}
