"""Debian's Kubernetes Python client (python3-kubernetes), used as a new user would, against
`crdgen testenv` or the real kube-apiserver: test/conformance/python-client.test.ts runs it.

    python3 client_flows.py KUBECONFIG FLOW

prints one JSON line per step: {"step": ..., "status": <HTTP status, 200 when no error>,
"reason": ..., "message": ..., "value": <what the step read>}. Flows: typed, dict, custom,
dynamic, watch. Steps record what the server answered; they do not judge it (the test does).
"""
import json
import sys
import threading
import time

from kubernetes import client, config, dynamic, watch
from kubernetes.client.rest import ApiException

NS = "default"
GROUP, VERSION, PLURAL = "samplecontroller.k8s.io", "v1alpha1", "foos"


def emit(step, value=None, err=None):
    out = {"step": step, "status": 200, "value": value}
    if err is not None:
        out["status"] = getattr(err, "status", 0) or 0
        body = getattr(err, "body", None)
        try:
            doc = json.loads(body) if body else {}
        except ValueError:
            doc = {"message": str(body)}
        if not isinstance(doc, dict):
            doc = {"message": str(doc)}
        out["reason"] = doc.get("reason") or getattr(err, "reason", "")
        out["message"] = doc.get("message") or str(err)
        out["value"] = None
    print(json.dumps(out, sort_keys=True), flush=True)


def step(name, fn):
    try:
        emit(name, fn())
    except ApiException as e:
        emit(name, err=e)
    except Exception as e:  # a client-side failure is an answer too (status 0)
        e.status = 0
        e.body = json.dumps({"reason": type(e).__name__, "message": str(e)})
        emit(name, err=e)


def typed_flow():
    v1 = client.CoreV1Api()
    apps = client.AppsV1Api()
    # A typed object without apiVersion/kind, as the client's own examples build it.
    cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="typed-cm", labels={"flow": "typed"}), data={"a": "1"})
    step("create configmap", lambda: [o.kind, o.api_version, o.data] if (o := v1.create_namespaced_config_map(NS, cm)) else None)
    step("read configmap", lambda: v1.read_namespaced_config_map("typed-cm", NS).data)
    step("list by label", lambda: [i.metadata.name for i in v1.list_namespaced_config_map(NS, label_selector="flow=typed").items])
    step(
        "json patch",
        lambda: v1.patch_namespaced_config_map("typed-cm", NS, [{"op": "add", "path": "/data/b", "value": "2"}]).data,
    )

    def replace():
        cur = v1.read_namespaced_config_map("typed-cm", NS)
        cur.data["c"] = "3"
        return v1.replace_namespaced_config_map("typed-cm", NS, cur).data

    step("replace configmap", replace)

    def stale():
        cur = v1.read_namespaced_config_map("typed-cm", NS)
        cur.metadata.resource_version = "1"
        return v1.replace_namespaced_config_map("typed-cm", NS, cur).data

    step("replace with a stale resourceVersion", stale)
    step("create it again", lambda: v1.create_namespaced_config_map(NS, cm).metadata.name)
    secret = client.V1Secret(metadata=client.V1ObjectMeta(name="typed-secret"), string_data={"k": "v"})
    step("create secret", lambda: v1.create_namespaced_secret(NS, secret).data)
    dep = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="typed-dep"),
        spec=client.V1DeploymentSpec(
            replicas=2,
            selector=client.V1LabelSelector(match_labels={"app": "typed"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "typed"}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")]),
            ),
        ),
    )
    step("create deployment", lambda: [o.kind, o.spec.replicas, o.spec.strategy.type] if (o := apps.create_namespaced_deployment(NS, dep)) else None)
    step("read deployment scale", lambda: apps.read_namespaced_deployment_scale("typed-dep", NS).spec.replicas)
    step("patch deployment scale", lambda: apps.patch_namespaced_deployment_scale("typed-dep", NS, [{"op": "replace", "path": "/spec/replicas", "value": 3}]).spec.replicas)
    ns = client.V1Namespace(metadata=client.V1ObjectMeta(name="typed-ns"))
    step("create namespace", lambda: v1.create_namespace(ns).status.phase)
    step("delete configmap", lambda: v1.delete_namespaced_config_map("typed-cm", NS).status)
    step(
        "delete deployment in the foreground",
        lambda: raw(apps.delete_namespaced_deployment("typed-dep", NS, body=client.V1DeleteOptions(propagation_policy="Foreground"), _preload_content=False)),
    )
    step("read deleted configmap", lambda: v1.read_namespaced_config_map("typed-cm", NS).data)


def raw(resp):
    """[HTTP status, kind, finalizers] of a response read with _preload_content=False."""
    doc = json.loads(resp.data)
    return [resp.status, doc.get("kind"), (doc.get("metadata") or {}).get("finalizers")]


def dict_flow():
    v1 = client.CoreV1Api()
    body = {"metadata": {"name": "dict-cm"}, "data": {"x": "y"}}
    step("create configmap from a dict", lambda: v1.create_namespaced_config_map(NS, body).data)
    step("create with kind only", lambda: v1.create_namespaced_config_map(NS, {"kind": "ConfigMap", "metadata": {"name": "dict-kind"}}).kind)
    step("create with the wrong kind", lambda: v1.create_namespaced_config_map(NS, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "dict-wrong"}}).kind)
    step("create with the wrong version", lambda: v1.create_namespaced_config_map(NS, {"apiVersion": "v2", "kind": "ConfigMap", "metadata": {"name": "dict-v2"}}).kind)
    step("replace from a dict", lambda: v1.replace_namespaced_config_map("dict-cm", NS, {"metadata": {"name": "dict-cm"}, "data": {"x": "z"}}).data)
    step("create namespace from a dict", lambda: v1.create_namespace({"metadata": {"name": "dict-ns"}}).metadata.name)
    step("delete with a dict of options", lambda: v1.delete_namespaced_config_map("dict-cm", NS, body={"gracePeriodSeconds": 0}).status)


def foo(name, replicas=1, with_kind=True):
    body = {"metadata": {"name": name}, "spec": {"deploymentName": name, "replicas": replicas}}
    if with_kind:
        body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Foo", **body}
    return body


def custom_flow():
    co = client.CustomObjectsApi()
    step("create foo", lambda: co.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, foo("custom-foo"))["spec"])
    step("create foo without kind", lambda: co.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, foo("custom-nokind", with_kind=False))["kind"])
    step("create invalid foo", lambda: co.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, foo("custom-bad", replicas=11))["spec"])
    step("get foo", lambda: co.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "custom-foo")["spec"]["replicas"])
    step("list foos", lambda: [i["metadata"]["name"] for i in co.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)["items"]])
    step("list foos in all namespaces", lambda: co.list_cluster_custom_object(GROUP, VERSION, PLURAL)["kind"])
    step("merge patch foo", lambda: co.patch_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "custom-foo", {"spec": {"replicas": 2}})["spec"]["replicas"])
    step(
        "patch status",
        lambda: co.patch_namespaced_custom_object_status(GROUP, VERSION, NS, PLURAL, "custom-foo", {"status": {"availableReplicas": 2}})["status"],
    )

    def replace():
        cur = co.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "custom-foo")
        cur["spec"]["replicas"] = 3
        return co.replace_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "custom-foo", cur)["spec"]["replicas"]

    step("replace foo", replace)
    step("delete foo", lambda: co.delete_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "custom-foo")["kind"])
    step(
        "delete foo kept by a finalizer",
        lambda: raw(co.delete_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "custom-kept", _preload_content=False))
        if co.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, {**foo("custom-kept"), "metadata": {"name": "custom-kept", "finalizers": ["example.com/keep"]}})
        else None,
    )
    step("get deleted foo", lambda: co.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "custom-foo")["spec"])


def dynamic_flow():
    dyn = dynamic.DynamicClient(client.ApiClient())
    foos = dyn.resources.get(api_version=f"{GROUP}/{VERSION}", kind="Foo")
    cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
    step("discovered foos", lambda: [foos.name, foos.namespaced, foos.kind])
    step("create foo", lambda: foos.create(body=foo("dyn-foo"), namespace=NS).spec.replicas)
    step("get foo", lambda: foos.get(name="dyn-foo", namespace=NS).spec.deploymentName)
    step("list foos", lambda: [i.metadata.name for i in foos.get(namespace=NS).items])
    step("patch foo", lambda: foos.patch(body={"metadata": {"name": "dyn-foo"}, "spec": {"replicas": 4}}, namespace=NS, content_type="application/merge-patch+json").spec.replicas)
    step("create configmap", lambda: cms.create(body={"metadata": {"name": "dyn-cm"}, "data": {"d": "1"}}, namespace=NS).data.d)
    step("strategic patch configmap", lambda: dict(cms.patch(name="dyn-cm", body={"data": {"e": "2"}}, namespace=NS).data))
    step("delete foo", lambda: foos.delete(name="dyn-foo", namespace=NS).kind)

    def watch_foos():
        got = []
        for ev in foos.watch(namespace=NS, timeout=20):
            got.append([ev["type"], ev["object"].metadata.name])
            if ev["object"].metadata.name == "dyn-watched":
                break
        return got

    result = {}
    t = threading.Thread(target=lambda: result.update(v=watch_foos()))
    t.start()
    time.sleep(1)
    step("create watched foo", lambda: foos.create(body=foo("dyn-watched"), namespace=NS).metadata.name)
    t.join(30)
    emit("dynamic watch events", result.get("v"))


def watch_flow():
    v1 = client.CoreV1Api()
    co = client.CustomObjectsApi()
    v1.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="watch-before"), data={"n": "0"}))
    rv = v1.list_namespaced_config_map(NS).metadata.resource_version
    foo_rv = co.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)["metadata"]["resourceVersion"]

    def typed_watch():
        w = watch.Watch()
        got = []
        for ev in w.stream(v1.list_namespaced_config_map, NS, resource_version=rv, timeout_seconds=20):
            got.append([ev["type"], ev["object"].metadata.name, ev["object"].data])
            if ev["type"] == "DELETED":
                w.stop()
        return got

    def custom_watch():
        w = watch.Watch()
        got = []
        for ev in w.stream(co.list_namespaced_custom_object, GROUP, VERSION, NS, PLURAL, resource_version=foo_rv, timeout_seconds=20):
            got.append([ev["type"], ev["object"]["metadata"]["name"]])
            if ev["object"]["metadata"]["name"] == "watch-foo" and ev["type"] == "MODIFIED":
                w.stop()
        return got

    def bookmarks():
        # allow_watch_bookmarks=True as Python spells it
        w = watch.Watch()
        return [ev["type"] for ev in w.stream(v1.list_namespaced_config_map, NS, resource_version=rv, allow_watch_bookmarks=True, timeout_seconds=3)][:1]

    results = {}
    threads = [
        threading.Thread(target=lambda: results.update(typed=typed_watch())),
        threading.Thread(target=lambda: results.update(custom=custom_watch())),
    ]
    for t in threads:
        t.start()
    time.sleep(2)
    v1.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="watch-cm"), data={"n": "1"}))
    v1.patch_namespaced_config_map("watch-cm", NS, [{"op": "replace", "path": "/data/n", "value": "2"}])
    v1.delete_namespaced_config_map("watch-cm", NS)
    co.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, foo("watch-foo"))
    co.patch_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, "watch-foo", {"spec": {"replicas": 2}})
    for t in threads:
        t.join(40)
    emit("typed watch events", results.get("typed"))
    emit("custom watch events", results.get("custom"))
    step("watch with bookmarks allowed", bookmarks)
    # watch=True sent by hand, as the generated API sends it: a stream of events, not a list
    step(
        "list call with watch=True",
        lambda: first_event(v1.list_namespaced_config_map(NS, watch=True, resource_version=rv, timeout_seconds=1, _preload_content=False)),
    )


def first_event(resp):
    ev = json.loads(resp.data.decode().split("\n")[0])
    return [ev.get("type"), ev.get("object", {}).get("kind"), ev.get("object", {}).get("metadata", {}).get("name")]


FLOWS = {"typed": typed_flow, "dict": dict_flow, "custom": custom_flow, "dynamic": dynamic_flow, "watch": watch_flow}

if __name__ == "__main__":
    config.load_kube_config(config_file=sys.argv[1])
    FLOWS[sys.argv[2]]()
