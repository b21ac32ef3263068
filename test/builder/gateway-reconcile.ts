// A reconciler a user writes against the operator `crdgen generate --controller Gateway --owns
// apps/v1/Deployment,v1/Service` generates for the Gateway API CRD: the reconcile.ts of that
// operator, as text (its runtime import is the test's). One proxy Deployment and one Service
// per Gateway, a port per listener, both applied with the Gateway's controller reference; the
// status reports what `context.owned` holds. Compiled under tsc --strict by
// test/unit/generate/controller.test.ts and run on both backends by gateway-operator.test.ts.

/** reconcile.ts for the generated Gateway operator, importing the runtime from `runtimeImport`. */
export function gatewayReconcile(runtimeImport: string): string {
  return `import { DeploymentResource, ServiceResource, type Result } from ${JSON.stringify(runtimeImport)};
import type { Gateway } from "../../apis/gateway.networking.k8s.io/v1/types.js";
import type { GatewayContext } from "./controller.js";

/** The proxy of a Gateway: a Deployment and a Service named after it, a port per listener. */
export async function reconcile(gateway: Gateway, context: GatewayContext): Promise<Result> {
  const gatewayName = gateway.metadata?.name ?? "";
  const namespace = gateway.metadata?.namespace ?? "";
  const labels = { "gateway.networking.k8s.io/gateway-name": gatewayName };
  const metadata = { name: \`\${gatewayName}-proxy\`, namespace, labels, ownerReferences: [context.ownerReference] };
  const listeners = gateway.spec.listeners;
  await context.client.apply(DeploymentResource, {
    metadata,
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: "proxy", image: "envoyproxy/envoy:v1.31.0", ports: listeners.map((l) => ({ name: l.name, containerPort: l.port })) }] },
      },
    },
  });
  await context.client.apply(ServiceResource, {
    metadata,
    spec: { selector: labels, ports: listeners.map((l) => ({ name: l.name, port: l.port, targetPort: l.name, protocol: "TCP" as const })) },
  });
  // typed access to what the Gateway controls (from the cache; this reconcile's applies may not be there yet)
  const deployments = context.owned.deployments.map((d) => \`\${d.metadata?.name}:\${d.spec?.replicas ?? 0}\`);
  const services = context.owned.services.map((s) => \`\${s.metadata?.name}:\${(s.spec?.ports ?? []).map((p) => p.port).join("+")}\`);
  context.logger.info({ deployments, services }, "owned");
  return {};
}
`;
}
