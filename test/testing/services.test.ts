// core/v1 Services on crdgen/testing as kube-apiserver v1.37.1 serves them: defaults, cluster IP
// and node port allocation (10.0.0.0/24, 30000-32767), the `kubernetes` Service, validation of
// the common mistakes, updates that keep or change allocated values, delete, Table, discovery.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { api } from './helpers.js';

const SVCS = '/api/v1/namespaces/default/services';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const svc = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec,
});
const lastOctet = (ip: string): number => Number(ip.split('.')[3]);

describe('Services', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer();
  });
  after(() => env.stop());

  it('the apiserver keeps default/kubernetes at 10.0.0.1 (https 443 → its own port), owned by kube-apiserver', async () => {
    const k = await api(env.url, 'GET', `${SVCS}/kubernetes`);
    assert.equal(k.status, 200);
    assert.deepEqual(k.body.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
    assert.equal(k.body.spec.clusterIP, '10.0.0.1');
    assert.deepEqual(k.body.spec.clusterIPs, ['10.0.0.1']);
    assert.deepEqual(k.body.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: env.port }]);
    assert.equal(k.body.metadata.managedFields[0].manager, 'kube-apiserver');
    assert.equal(
      k.body.metadata.managedFields[0].fieldsV1['f:spec']['f:clusterIPs'],
      undefined,
      'allocated fields are owned by nobody',
    );
  });

  it('create: the v1 defaults, and a cluster IP allocated in the upper band of 10.0.0.0/24 that nobody owns', async () => {
    const r = await api(env.url, 'POST', SVCS, svc('a', { selector: { app: 'a' }, ports: [{ port: 80 }] }));
    assert.equal(r.status, 201);
    const s = r.body.spec;
    assert.match(s.clusterIP, /^10\.0\.0\.\d+$/);
    assert.ok(lastOctet(s.clusterIP) >= 17 && lastOctet(s.clusterIP) <= 254, s.clusterIP);
    assert.deepEqual(s.clusterIPs, [s.clusterIP]);
    assert.deepEqual(s.ports, [{ protocol: 'TCP', port: 80, targetPort: 80 }]);
    assert.equal(s.type, 'ClusterIP');
    assert.equal(s.sessionAffinity, 'None');
    assert.deepEqual(s.ipFamilies, ['IPv4']);
    assert.equal(s.ipFamilyPolicy, 'SingleStack');
    assert.equal(s.internalTrafficPolicy, 'Cluster');
    assert.deepEqual(r.body.status, { loadBalancer: {} });
    const owned = Object.keys(r.body.metadata.managedFields[0].fieldsV1['f:spec']).sort();
    assert.deepEqual(owned, ['f:internalTrafficPolicy', 'f:ports', 'f:selector', 'f:sessionAffinity', 'f:type']);
  });

  it('a requested cluster IP is taken once; the kubernetes IP, other networks, bad IPs and IPv6 are refused', async () => {
    assert.equal(
      (await api(env.url, 'POST', SVCS, svc('b', { clusterIP: '10.0.0.5', ports: [{ port: 80 }] }))).status,
      201,
    );
    const cases: [string, string][] = [
      [
        '10.0.0.5',
        'spec.clusterIPs: Invalid value: ["10.0.0.5"]: failed to allocate IP 10.0.0.5: provided IP is already allocated',
      ],
      [
        '10.0.0.1',
        'spec.clusterIPs: Invalid value: ["10.0.0.1"]: failed to allocate IP 10.0.0.1: provided IP is already allocated',
      ],
      [
        '10.1.0.5',
        'spec.clusterIPs: Invalid value: ["10.1.0.5"]: failed to allocate IP 10.1.0.5: the provided network does not match the current range',
      ],
      [
        '10.0.0.255',
        'spec.clusterIPs: Invalid value: ["10.0.0.255"]: failed to allocate IP 10.0.0.255: the provided network does not match the current range',
      ],
      [
        'abc',
        'spec.clusterIPs[0]: Invalid value: "abc": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      ],
      ['fd00::5', 'spec.clusterIPs[0]: Invalid value: ["fd00::5"]: IPv6 is not configured on this cluster'],
    ];
    for (const [ip, msg] of cases) {
      const r = await api(env.url, 'POST', SVCS, svc('c', { clusterIP: ip, ports: [{ port: 80 }] }));
      assert.equal(r.status, 422, ip);
      assert.equal(r.body.message, `Service "c" is invalid: ${msg}`);
    }
  });

  it('the common mistakes: no ports, bad or duplicate ports, unnamed ports, bad names, a nodePort on ClusterIP', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ selector: { app: 'x' } }, 'spec.ports: Required value'],
      [
        { ports: [{ port: 0 }] },
        '[spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive]',
      ],
      [
        {
          ports: [
            { name: 'a', port: 80 },
            { name: 'b', port: 80 },
          ],
        },
        'spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}',
      ],
      [
        { ports: [{ port: 80 }, { port: 81 }] },
        '[spec.ports[0].name: Required value, spec.ports[1].name: Required value]',
      ],
      [
        {
          ports: [
            { name: 'a', port: 80 },
            { name: 'a', port: 81 },
          ],
        },
        'spec.ports[1].name: Duplicate value: "a"',
      ],
      [
        { ports: [{ port: 80, protocol: 'HTTP' }] },
        'spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
      ],
      [
        { ports: [{ port: 80, nodePort: 30001 }] },
        "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
      ],
      [
        { type: 'Bogus', ports: [{ port: 80 }] },
        'spec.type: Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      ],
      [{ type: 'ExternalName' }, 'spec.externalName: Required value'],
    ];
    for (const [spec, msg] of cases) {
      const r = await api(env.url, 'POST', SVCS, svc('m', spec));
      assert.equal(r.status, 422, JSON.stringify(spec));
      assert.equal(r.body.message, `Service "m" is invalid: ${msg}`);
    }
    const name = await api(env.url, 'POST', SVCS, svc('Bad.Name', { ports: [{ port: 80 }] }));
    assert.match(
      name.body.message,
      /^Service "Bad.Name" is invalid: metadata.name: Invalid value: "Bad.Name": a lowercase RFC 1123 label must consist of/,
    );
  });

  it('NodePort and LoadBalancer: node ports allocated (30086-32767 first) or requested once, in range; Local gets a health-check port', async () => {
    const np = await api(env.url, 'POST', SVCS, svc('np', { type: 'NodePort', ports: [{ port: 80 }] }));
    assert.equal(np.status, 201);
    const port = np.body.spec.ports[0].nodePort;
    assert.ok(port >= 30086 && port <= 32767, String(port));
    assert.equal(np.body.spec.externalTrafficPolicy, 'Cluster');
    assert.equal(
      (await api(env.url, 'POST', SVCS, svc('np1', { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] }))).body
        .spec.ports[0].nodePort,
      30005,
    );
    const taken = await api(
      env.url,
      'POST',
      SVCS,
      svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] }),
    );
    assert.equal(
      taken.body.message,
      'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30005: provided port is already allocated',
    );
    const range = await api(
      env.url,
      'POST',
      SVCS,
      svc('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] }),
    );
    assert.equal(
      range.body.message,
      'Service "np3" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    const lb = await api(
      env.url,
      'POST',
      SVCS,
      svc('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 443 }] }),
    );
    assert.equal(lb.status, 201);
    assert.equal(lb.body.spec.allocateLoadBalancerNodePorts, true);
    assert.ok(
      lb.body.spec.healthCheckNodePort >= 30000 && lb.body.spec.healthCheckNodePort !== lb.body.spec.ports[0].nodePort,
    );
    const st = await api(
      env.url,
      'PATCH',
      `${SVCS}/lb/status`,
      { status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } } },
      MERGE,
    );
    assert.deepEqual(st.body.status.loadBalancer.ingress, [{ ip: '192.0.2.10', ipMode: 'VIP' }]);
  });

  it('update: allocated values a client leaves out are kept, a changed cluster IP is refused, a type change allocates and wipes', async () => {
    await api(env.url, 'POST', SVCS, svc('u', { clusterIP: '10.0.0.11', ports: [{ name: 'http', port: 80 }] }));
    const put = await api(env.url, 'PUT', `${SVCS}/u`, svc('u', { ports: [{ name: 'http', port: 8080 }] }));
    assert.equal(put.status, 200);
    assert.equal(put.body.spec.clusterIP, '10.0.0.11');
    const change = await api(
      env.url,
      'PUT',
      `${SVCS}/u`,
      svc('u', { clusterIP: '10.0.0.12', ports: [{ name: 'http', port: 80 }] }),
    );
    assert.equal(change.status, 422);
    assert.equal(
      change.body.message,
      'Service "u" is invalid: spec.clusterIPs[0]: Invalid value: ["10.0.0.12"]: may not change once set',
    );
    const toNp = await api(env.url, 'PATCH', `${SVCS}/u`, { spec: { type: 'NodePort' } }, MERGE);
    assert.ok(toNp.body.spec.ports[0].nodePort >= 30000);
    assert.equal(toNp.body.spec.externalTrafficPolicy, 'Cluster');
    const back = await api(env.url, 'PATCH', `${SVCS}/u`, { spec: { type: 'ClusterIP' } }, MERGE);
    assert.equal(back.body.spec.ports[0].nodePort, undefined);
    assert.equal(back.body.spec.externalTrafficPolicy, undefined);
    const en = await api(
      env.url,
      'PATCH',
      `${SVCS}/u`,
      { spec: { type: 'ExternalName', externalName: 'u.example.com' } },
      MERGE,
    );
    assert.equal(en.status, 200);
    for (const f of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy', 'internalTrafficPolicy'])
      assert.equal(en.body.spec[f], undefined, f);
    assert.equal(
      (await api(env.url, 'POST', SVCS, svc('u2', { clusterIP: '10.0.0.11', ports: [{ port: 80 }] }))).status,
      201,
      'the IP was freed',
    );
  });

  it('server-side apply keeps the allocated cluster IP across applies (ports keyed by port and protocol)', async () => {
    const a = await api(
      env.url,
      'PATCH',
      `${SVCS}/ap?fieldManager=op`,
      JSON.stringify(svc('ap', { ports: [{ name: 'db', port: 5432, targetPort: 5432, protocol: 'TCP' }] })),
      APPLY,
    );
    assert.equal(a.status, 201);
    const b = await api(
      env.url,
      'PATCH',
      `${SVCS}/ap?fieldManager=op`,
      JSON.stringify(svc('ap', { ports: [{ name: 'db', port: 6432, targetPort: 5432, protocol: 'TCP' }] })),
      APPLY,
    );
    assert.equal(b.status, 200);
    assert.equal(b.body.spec.clusterIP, a.body.spec.clusterIP);
    assert.deepEqual(b.body.spec.ports, [{ name: 'db', protocol: 'TCP', port: 6432, targetPort: 5432 }]);
  });

  it('a dry run allocates nothing; delete answers the Service and frees its IP', async () => {
    assert.equal(
      (await api(env.url, 'POST', `${SVCS}?dryRun=All`, svc('d', { clusterIP: '10.0.0.13', ports: [{ port: 80 }] })))
        .status,
      201,
    );
    assert.equal(
      (await api(env.url, 'POST', SVCS, svc('d', { clusterIP: '10.0.0.13', ports: [{ port: 80 }] }))).status,
      201,
    );
    const del = await api(env.url, 'DELETE', `${SVCS}/d`);
    assert.equal(del.status, 200);
    assert.equal(del.body.kind, 'Service');
    assert.equal(del.body.spec.clusterIP, '10.0.0.13');
    assert.equal(
      (await api(env.url, 'POST', SVCS, svc('d2', { clusterIP: '10.0.0.13', ports: [{ port: 80 }] }))).status,
      201,
    );
  });

  it('Table cells as the printer computes them; field selectors spec.type and spec.clusterIP; discovery; proxy 503', async () => {
    await api(
      env.url,
      'POST',
      SVCS,
      svc('t', {
        type: 'NodePort',
        clusterIP: '10.0.0.14',
        selector: { b: '2', a: '1' },
        ports: [
          { name: 'h', port: 80, nodePort: 30014 },
          { name: 'x', port: 53, protocol: 'UDP', nodePort: 30015 },
        ],
      }),
    );
    const t = await api(env.url, 'GET', `${SVCS}?fieldSelector=spec.clusterIP%3D10.0.0.14`, undefined, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    assert.deepEqual(
      t.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector'],
    );
    assert.equal(t.body.rows.length, 1);
    const cells = t.body.rows[0].cells;
    assert.deepEqual(
      [...cells.slice(0, 5), cells[6]],
      ['t', 'NodePort', '10.0.0.14', '<none>', '80:30014/TCP,53:30015/UDP', 'a=1,b=2'],
    );
    const byType = await api(env.url, 'GET', `${SVCS}?fieldSelector=spec.type%3DNodePort`);
    assert.ok(
      byType.body.items.every((i: { spec: { type: string } }) => i.spec.type === 'NodePort') &&
        byType.body.items.length >= 1,
    );
    const d = await api(env.url, 'GET', '/api/v1');
    const svcRes = d.body.resources.filter((r: { name: string }) => r.name.startsWith('services'));
    assert.deepEqual(
      svcRes.map((r: { name: string }) => r.name),
      ['services', 'services/proxy', 'services/status'],
    );
    assert.deepEqual(svcRes[0].shortNames, ['svc']);
    assert.deepEqual(svcRes[0].categories, ['all']);
    const proxy = await api(env.url, 'GET', `${SVCS}/t/proxy/some/path`);
    assert.equal(proxy.status, 503);
    assert.equal(proxy.body.message, 'no endpoints available for service "t"');
  });
});
