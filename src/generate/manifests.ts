// The operator's config/ as kustomize bases (kubebuilder's project layout), for each kind named by
// `--controller`, in controllers/<kind>/config/ (every file regenerated unless said otherwise):
//   crd/             — the kind's CRD and its kustomization
//   rbac/            — role.yaml (the least-privilege ClusterRole, its ServiceAccount, the Lease Role),
//                      the metrics-auth role and binding, the metrics-reader role, and the kind's
//                      admin/editor/viewer ClusterRoles aggregated to the built-in admin/edit/view
//   manager/         — the Namespace and the Deployment
//   network-policy/  — NetworkPolicies: metrics (and webhook) traffic from labelled namespaces only
//   prometheus/      — a ServiceMonitor, as a kustomize Component the user turns on
//   default/         — the overlay that builds them all into one install.yaml: its
//                      kustomization.yaml is the user's (written once, never overwritten), its
//                      metrics_service.yaml crdgen's
// The webhooks emitter adds webhook/ (the Service and webhook configurations) and certmanager/ (a
// Component: cert-manager's Issuer and Certificate, the CA injection, the mounted certificate).
// Names are the ones every file already carries (`<kind>-operator` in `<kind>-system`): no
// namePrefix or namespace transformer, so what each base says is what gets applied.
import { createRequire } from 'node:module';
import { render } from '../emit/handlebars.js';
import type { GeneratedFile } from './emitter.js';

/** What the manifests of one operator are named after. */
export interface ManifestNames {
  /** The kind's type name (`DatabaseManager`). */
  type: string;
  /** `controllers/<dir>/`. */
  dir: string;
  /** The operator's Deployment, ServiceAccount, ClusterRole (`<dir>-operator`). */
  name: string;
  /** `<dir>-system`. */
  namespace: string;
  /** The kind's API group and plural, and whether it has a status subresource. */
  group: string;
  plural: string;
  status: boolean;
}

/** The port the metrics endpoint serves on (`--metrics-bind-address=:8443`, the Service's `https`). */
export const METRICS_PORT = 8443;
/** The port of the webhook server (`--webhook-bind-address=:9443`). */
export const WEBHOOK_PORT = 9443;

/** `docs` as YAML documents after `header`, each opened by `---`, in the layout every generated manifest has. */
export function yamlDocs(header: string, docs: readonly Record<string, unknown>[]): string {
  const { Document } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return (
    header +
    docs
      .map(
        (d) =>
          `---\n${new Document(d, { version: '1.1', aliasDuplicateObjects: false }).toString({ lineWidth: 0, indentSeq: true })}`,
      )
      .join('')
  );
}

/** `text` as `# ` comment lines. */
export function commentLines(text: string): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? '#' : `# ${l}`))
    .join('\n')
    .concat('\n');
}

/** A generated kustomization.yaml (a Kustomization, or a Component with `component`). */
export function kustomization(
  header: string,
  comment: string,
  body: Record<string, unknown>,
  component = false,
): string {
  const head = component
    ? { apiVersion: 'kustomize.config.k8s.io/v1alpha1', kind: 'Component' }
    : { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization' };
  return yamlDocs(header + commentLines(comment), [{ ...head, ...body }]);
}

/** The pods of the operator, as its Deployment, Services and policies select them. */
export function podLabels(n: Pick<ManifestNames, 'name'>): Record<string, string> {
  return { 'app.kubernetes.io/name': n.name };
}

const rbacApi = 'rbac.authorization.k8s.io/v1';

/** The kind's admin, editor and viewer ClusterRoles, each aggregated to the built-in role of its rank. */
function userRoles(n: ManifestNames): Array<{ file: string; doc: Record<string, unknown>; what: string }> {
  const ranks = [
    {
      rank: 'admin',
      builtin: 'admin',
      verbs: ['*'],
      what: `every verb on ${n.plural}, for those who also delegate access to them`,
    },
    {
      rank: 'editor',
      builtin: 'edit',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      what: `${n.plural} created, changed and deleted`,
    },
    { rank: 'viewer', builtin: 'view', verbs: ['get', 'list', 'watch'], what: `${n.plural} read` },
  ];
  return ranks.map(({ rank, builtin, verbs, what }) => ({
    file: `${n.dir}_${rank}_role.yaml`,
    what,
    doc: {
      apiVersion: rbacApi,
      kind: 'ClusterRole',
      metadata: {
        name: `${n.dir}-${rank}-role`,
        labels: { ...podLabels(n), [`rbac.authorization.k8s.io/aggregate-to-${builtin}`]: 'true' },
      },
      rules: [
        { apiGroups: [n.group], resources: [n.plural], verbs },
        ...(n.status ? [{ apiGroups: [n.group], resources: [`${n.plural}/status`], verbs: ['get'] }] : []),
      ],
    },
  }));
}

/**
 * Every file of config/ the controller emitter writes besides the CRD, role.yaml and the manager:
 * the bases' kustomizations, the metrics roles and Service, the kind's user roles, the network
 * policies, the prometheus component and the default overlay (the user's).
 */
export function layoutFiles(
  base: string,
  header: string,
  n: ManifestNames,
  crdFile: string,
  webhooks: boolean,
): GeneratedFile[] {
  const at = (p: string): string => `${base}/config/${p}`;
  const labels = podLabels(n);
  const sa = [{ kind: 'ServiceAccount', name: n.name, namespace: n.namespace }];
  const roles = userRoles(n);
  const files: GeneratedFile[] = [
    {
      path: at('crd/kustomization.yaml'),
      contents: kustomization(header, `The ${n.type} CRD.`, { resources: [crdFile] }),
    },
    {
      path: at('rbac/metrics_auth_role.yaml'),
      contents: yamlDocs(
        header +
          commentLines(
            `What the operator needs to check every caller of its secured metrics (--metrics-secure):\nTokenReview (who is it) and SubjectAccessReview (may they get /metrics).`,
          ),
        [
          {
            apiVersion: rbacApi,
            kind: 'ClusterRole',
            metadata: { name: `${n.name}-metrics-auth` },
            rules: [
              { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
              { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
            ],
          },
          {
            apiVersion: rbacApi,
            kind: 'ClusterRoleBinding',
            metadata: { name: `${n.name}-metrics-auth` },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${n.name}-metrics-auth` },
            subjects: sa,
          },
        ],
      ),
    },
    {
      path: at('rbac/metrics_reader_role.yaml'),
      contents: yamlDocs(
        header +
          commentLines(
            `What a scraper needs to read the operator's metrics. Bind your Prometheus's ServiceAccount to it:\n  kubectl create clusterrolebinding ${n.name}-metrics-reader \\\n    --clusterrole=${n.name}-metrics-reader --serviceaccount=<namespace>:<serviceaccount>`,
          ),
        [
          {
            apiVersion: rbacApi,
            kind: 'ClusterRole',
            metadata: { name: `${n.name}-metrics-reader` },
            rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
          },
        ],
      ),
    },
    ...roles.map((r) => ({
      path: at(`rbac/${r.file}`),
      contents: yamlDocs(
        header +
          commentLines(
            `For people, not the operator: ${r.what}. The label aggregates it into the built-in ClusterRole of\nthe same rank, so whoever is bound to that one in a namespace gets it there too.`,
          ),
        [r.doc],
      ),
    })),
    {
      path: at('rbac/kustomization.yaml'),
      contents: kustomization(
        header,
        `The ${n.type} operator's RBAC: its own least-privilege role (role.yaml), what its secured metrics\nneed, and the ${n.plural} roles for people.`,
        {
          resources: ['role.yaml', 'metrics_auth_role.yaml', 'metrics_reader_role.yaml', ...roles.map((r) => r.file)],
        },
      ),
    },
    {
      path: at('manager/kustomization.yaml'),
      contents: kustomization(header, `The ${n.type} operator's Namespace and Deployment.`, {
        resources: ['manager.yaml'],
      }),
    },
    {
      path: at('default/metrics_service.yaml'),
      contents: yamlDocs(
        header +
          commentLines(
            `The Service a Prometheus scrapes the operator's metrics through, over HTTPS\n(--metrics-secure: the caller needs the ${n.name}-metrics-reader role).`,
          ),
        [
          {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: {
              name: `${n.name}-metrics`,
              namespace: n.namespace,
              labels: { ...labels, 'app.kubernetes.io/component': 'metrics' },
            },
            spec: {
              selector: labels,
              ports: [{ name: 'https', port: METRICS_PORT, targetPort: 'metrics', protocol: 'TCP' }],
            },
          },
        ],
      ),
    },
    ...networkPolicies(at, header, n, webhooks),
    ...prometheus(at, header, n),
    {
      path: at('default/kustomization.yaml'),
      contents: render('controller', 'kustomization', { ...n, webhooks }),
      userOwned: true,
    },
  ];
  return files;
}

function networkPolicies(
  at: (p: string) => string,
  header: string,
  n: ManifestNames,
  webhooks: boolean,
): GeneratedFile[] {
  const policy = (what: string, label: string, port: number): Record<string, unknown> => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: `${n.name}-allow-${what}-traffic`, namespace: n.namespace, labels: podLabels(n) },
    spec: {
      podSelector: { matchLabels: podLabels(n) },
      policyTypes: ['Ingress'],
      ingress: [
        { from: [{ namespaceSelector: { matchLabels: { [label]: 'enabled' } } }], ports: [{ port, protocol: 'TCP' }] },
      ],
    },
  });
  const files: GeneratedFile[] = [
    {
      path: at('network-policy/allow-metrics-traffic.yaml'),
      contents: yamlDocs(
        header +
          commentLines(
            `Metrics traffic to the operator's pods only from namespaces labelled metrics=enabled:\n  kubectl label namespace <your Prometheus's namespace> metrics=enabled`,
          ),
        [policy('metrics', 'metrics', METRICS_PORT)],
      ),
    },
  ];
  if (webhooks)
    files.push({
      path: at('network-policy/allow-webhook-traffic.yaml'),
      contents: yamlDocs(
        header +
          commentLines(
            `Webhook traffic to the operator's pods only from namespaces labelled webhook=enabled. The API\nserver calls the webhooks from outside the pod network on most clusters: where your network plugin\napplies policies to that traffic, allow the API server's addresses here (an ipBlock).`,
          ),
        [policy('webhook', 'webhook', WEBHOOK_PORT)],
      ),
    });
  files.push({
    path: at('network-policy/kustomization.yaml'),
    contents: kustomization(
      header,
      `NetworkPolicies of the ${n.type} operator's pods: once one selects them, other ingress is denied\n(kubelet probes still pass). Turn them on in default/kustomization.yaml (resources: ../network-policy).`,
      {
        resources: ['allow-metrics-traffic.yaml', ...(webhooks ? ['allow-webhook-traffic.yaml'] : [])],
      },
    ),
  });
  return files;
}

function prometheus(at: (p: string) => string, header: string, n: ManifestNames): GeneratedFile[] {
  return [
    {
      path: at('prometheus/monitor.yaml'),
      contents: yamlDocs(
        header +
          commentLines(
            `A Prometheus Operator ServiceMonitor for the operator's metrics Service: HTTPS with the scraper's\nServiceAccount token (bind it to ${n.name}-metrics-reader). The operator's metrics certificate is\nself-signed unless it runs with --metrics-cert-dir, hence insecureSkipVerify.`,
          ),
        [
          {
            apiVersion: 'monitoring.coreos.com/v1',
            kind: 'ServiceMonitor',
            metadata: { name: `${n.name}-metrics-monitor`, namespace: n.namespace, labels: podLabels(n) },
            spec: {
              endpoints: [
                {
                  path: '/metrics',
                  port: 'https',
                  scheme: 'https',
                  bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
                  tlsConfig: { insecureSkipVerify: true },
                },
              ],
              selector: { matchLabels: { ...podLabels(n), 'app.kubernetes.io/component': 'metrics' } },
            },
          },
        ],
      ),
    },
    {
      path: at('prometheus/kustomization.yaml'),
      contents: kustomization(
        header,
        `A ServiceMonitor for the ${n.type} operator's metrics, as a component: turn it on in\ndefault/kustomization.yaml (components: ../prometheus). Needs the Prometheus Operator's CRDs.`,
        { resources: ['monitor.yaml'] },
        true,
      ),
    },
  ];
}
