// Typed client-go v0.37.1 clientsets (kubernetes and apiextensions, with their defaults: they
// send built-in kinds, DeleteOptions and Scale in protobuf) against a server, step by step, for
// crdgen's tests: test/conformance/clientgo-typed.test.ts runs it on testenv and the real
// control plane and compares. Each step prints one JSON line:
//
//	{"step": ..., "status": <HTTP status of the error, 0 when none>, "reason": ..., "message": ...,
//	 "object": <the typed result, as client-go decoded it>, "raw": <the object read back as JSON>}
//
// with uid, resourceVersion, creationTimestamp and managed-fields times blanked.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

const ns = "typed"

var (
	ctx  = context.Background()
	kube *kubernetes.Clientset
	ext  *apiextensions.Clientset
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "path to the kubeconfig")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if kube, err = kubernetes.NewForConfig(cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if ext, err = apiextensions.NewForConfig(cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	namespaces()
	configMaps()
	secrets()
	deployments()
	leases()
	events()
	crds()
}

// step prints what one call returned; raw, when not nil, reads the object back as JSON.
func step(name string, obj any, err error, raw func() ([]byte, error)) {
	out := map[string]any{"step": name, "status": 0}
	if err != nil {
		if s, ok := err.(apierrors.APIStatus); ok {
			st := s.Status()
			out["status"], out["reason"], out["message"] = st.Code, st.Reason, st.Message
		} else {
			out["status"], out["message"] = -1, err.Error()
		}
	} else if obj != nil {
		out["object"] = normalize(obj)
	}
	if err == nil && raw != nil {
		b, rerr := raw()
		if rerr != nil {
			out["raw"] = "read back: " + rerr.Error()
		} else {
			var v any
			_ = json.Unmarshal(b, &v)
			out["raw"] = normalize(v)
		}
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}

// normalize turns obj into plain JSON and blanks what differs from run to run.
func normalize(obj any) any {
	b, _ := json.Marshal(obj)
	var v any
	_ = json.Unmarshal(b, &v)
	blank(v)
	return v
}

func blank(v any) {
	switch t := v.(type) {
	case map[string]any:
		if md, ok := t["metadata"].(map[string]any); ok {
			for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp"} {
				if _, has := md[k]; has {
					md[k] = "…"
				}
			}
			if mf, ok := md["managedFields"].([]any); ok {
				for _, e := range mf {
					if m, ok := e.(map[string]any); ok {
						m["time"] = "…"
					}
				}
				// the apiserver orders entries by operation, then time in seconds: with the times
				// blanked, the order within an operation is by manager
				sort.SliceStable(mf, func(i, j int) bool {
					a, _ := mf[i].(map[string]any)
					b, _ := mf[j].(map[string]any)
					if a["operation"] != b["operation"] {
						return fmt.Sprint(a["operation"]) < fmt.Sprint(b["operation"])
					}
					return fmt.Sprint(a["manager"], a["subresource"]) < fmt.Sprint(b["manager"], b["subresource"])
				})
			}
		}
		if _, has := t["uid"]; has && t["kind"] != nil && t["name"] != nil {
			t["uid"] = "…" // an involvedObject/regarding/ownerReference
		}
		for _, c := range t {
			blank(c)
		}
	case []any:
		for _, c := range t {
			blank(c)
		}
	}
}

func rawGet(path string) func() ([]byte, error) {
	return func() ([]byte, error) {
		return kube.CoreV1().RESTClient().Get().AbsPath(path).SetHeader("Accept", "application/json").DoRaw(ctx)
	}
}

func ptr[T any](v T) *T { return &v }

func namespaces() {
	n, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"flow": "typed"}}}, metav1.CreateOptions{})
	step("create namespace", n, err, rawGet("/api/v1/namespaces/"+ns))
	n, err = kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "typed-doomed"}}, metav1.CreateOptions{})
	step("create another namespace", n, err, nil)
	err = kube.CoreV1().Namespaces().Delete(ctx, "typed-doomed", metav1.DeleteOptions{})
	step("delete it", nil, err, nil)
}

func configMaps() {
	cms := kube.CoreV1().ConfigMaps(ns)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cm", Labels: map[string]string{"app": "typed"}, Annotations: map[string]string{"note": "protobuf"}},
		Data:       map[string]string{"a": "1", "empty": ""},
		BinaryData: map[string][]byte{"bin": {0, 1, 2, 255}},
	}
	got, err := cms.Create(ctx, cm, metav1.CreateOptions{FieldManager: "typed"})
	step("create configmap", got, err, rawGet("/api/v1/namespaces/"+ns+"/configmaps/cm"))
	if got != nil {
		got.Data["b"] = "2"
		got.Immutable = ptr(false)
		got, err = cms.Update(ctx, got, metav1.UpdateOptions{FieldManager: "typed"})
		step("update configmap", got, err, rawGet("/api/v1/namespaces/"+ns+"/configmaps/cm"))
	}
	stale := cm.DeepCopy()
	stale.ResourceVersion = "1"
	_, err = cms.Update(ctx, stale, metav1.UpdateOptions{})
	step("update with a stale resourceVersion", nil, err, nil)
	_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
	step("create it again", nil, err, nil)
	for _, name := range []string{"cm-x", "cm-y"} {
		_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"batch": "x"}}}, metav1.CreateOptions{})
		step("create "+name, nil, err, nil)
	}
	err = cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "batch=x"})
	step("delete collection batch=x", nil, err, nil)
	l, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "batch=x"})
	step("list batch=x", itemsOf(l), err, nil)
	ac := applycorev1.ConfigMap("applied", ns).WithLabels(map[string]string{"app": "typed"}).WithData(map[string]string{"k": "v"})
	got, err = cms.Apply(ctx, ac, metav1.ApplyOptions{FieldManager: "typed-apply"})
	step("apply configmap", got, err, rawGet("/api/v1/namespaces/"+ns+"/configmaps/applied"))
	got, err = cms.Apply(ctx, applycorev1.ConfigMap("applied", ns).WithData(map[string]string{"k": "other"}), metav1.ApplyOptions{FieldManager: "someone-else"})
	step("apply a conflicting value", got, err, nil)
	got, err = cms.Apply(ctx, applycorev1.ConfigMap("applied", ns).WithData(map[string]string{"k": "other"}), metav1.ApplyOptions{FieldManager: "someone-else", Force: true})
	step("apply it with force", got, err, rawGet("/api/v1/namespaces/"+ns+"/configmaps/applied"))
	err = cms.Delete(ctx, "cm", metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationBackground), GracePeriodSeconds: ptr(int64(0))})
	step("delete configmap", nil, err, nil)
	_, err = cms.Get(ctx, "cm", metav1.GetOptions{})
	step("read deleted configmap", nil, err, nil)
	err = cms.Delete(ctx, "cm", metav1.DeleteOptions{})
	step("delete it again", nil, err, nil)
}

func itemsOf(l *corev1.ConfigMapList) any {
	if l == nil {
		return nil
	}
	names := []string{}
	for _, i := range l.Items {
		names = append(names, i.Name)
	}
	return names
}

func secrets() {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "secret"},
		Data:       map[string][]byte{"raw": []byte("bytes\x00here")},
		StringData: map[string]string{"user": "admin"},
		Type:       corev1.SecretTypeOpaque,
	}
	got, err := kube.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{})
	step("create secret", got, err, rawGet("/api/v1/namespaces/"+ns+"/secrets/secret"))
	tls := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "tls"}, Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": []byte("c"), "tls.key": []byte("k")}}
	got, err = kube.CoreV1().Secrets(ns).Create(ctx, tls, metav1.CreateOptions{})
	step("create tls secret", got, err, nil)
}

func podSpec() corev1.PodSpec {
	return corev1.PodSpec{
		ServiceAccountName:            "default",
		NodeSelector:                  map[string]string{"kubernetes.io/os": "linux"},
		TerminationGracePeriodSeconds: ptr(int64(10)),
		Hostname:                      "web",
		Volumes: []corev1.Volume{
			{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}, DefaultMode: ptr(int32(0o440)), Items: []corev1.KeyToPath{{Key: "a", Path: "a.txt"}}}}},
			{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: ptr(resource.MustParse("64Mi"))}}},
			{Name: "creds", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "secret", Optional: ptr(true)}}},
		},
		InitContainers: []corev1.Container{{Name: "init", Image: "busybox:1.36", Command: []string{"sh", "-c", "true"}}},
		Containers: []corev1.Container{{
			Name:            "web",
			Image:           "nginx:1.27",
			Args:            []string{"--port", "8080"},
			WorkingDir:      "/srv",
			ImagePullPolicy: corev1.PullIfNotPresent,
			Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP}},
			Env: []corev1.EnvVar{
				{Name: "PLAIN", Value: "v"},
				{Name: "EMPTY"},
				{Name: "FROM_CM", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}, Key: "a", Optional: ptr(false)}}},
				{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			},
			EnvFrom:   []corev1.EnvFromSource{{Prefix: "S_", SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "secret"}}}},
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("128Mi")}, Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0.1")}},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "config", MountPath: "/etc/web", ReadOnly: true},
				{Name: "scratch", MountPath: "/tmp", SubPath: "t"},
			},
			LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http"), HTTPHeaders: []corev1.HTTPHeader{{Name: "X", Value: "y"}}}}, InitialDelaySeconds: 3, PeriodSeconds: 7, FailureThreshold: 4},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}, TimeoutSeconds: 2},
			StartupProbe:   &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/ready"}}}},
			Lifecycle:      &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "5"}}}},
			SecurityContext: &corev1.SecurityContext{
				RunAsNonRoot:             ptr(true),
				RunAsUser:                ptr(int64(1000)),
				AllowPrivilegeEscalation: ptr(false),
				ReadOnlyRootFilesystem:   ptr(true),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: []corev1.Capability{"NET_BIND_SERVICE"}},
				SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
		}},
		SecurityContext: &corev1.PodSecurityContext{FSGroup: ptr(int64(2000)), SupplementalGroups: []int64{3000, 4000}, RunAsGroup: ptr(int64(3000))},
		Tolerations: []corev1.Toleration{
			{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "web", Effect: corev1.TaintEffectNoSchedule},
			{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(30))},
		},
		Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight:          50,
			PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}}}}},
		}}}},
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
		DNSConfig:                 &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1"}, Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr("2")}}},
	}
}

func deployments() {
	deps := kube.AppsV1().Deployments(ns)
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: labels, Finalizers: []string{"example.com/keep"}},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr(int32(2)),
			MinReadySeconds:      5,
			RevisionHistoryLimit: ptr(int32(3)),
			Selector:             &metav1.LabelSelector{MatchLabels: labels},
			Strategy:             appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr(intstr.FromString("50%")), MaxUnavailable: ptr(intstr.FromInt32(0))}},
			Template:             corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"a": "b"}}, Spec: podSpec()},
		},
	}
	raw := rawGet("/apis/apps/v1/namespaces/" + ns + "/deployments/web")
	got, err := deps.Create(ctx, d, metav1.CreateOptions{FieldManager: "typed"})
	step("create deployment", got, err, raw)
	if got == nil {
		return
	}
	got.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	got, err = deps.Update(ctx, got, metav1.UpdateOptions{FieldManager: "typed"})
	step("update deployment", got, err, raw)
	if got == nil {
		return
	}
	now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	got.Status = appsv1.DeploymentStatus{
		ObservedGeneration: got.Generation,
		Replicas:           2,
		UpdatedReplicas:    2,
		ReadyReplicas:      1,
		AvailableReplicas:  1,
		Conditions: []appsv1.DeploymentCondition{{
			Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable", Message: "waiting", LastUpdateTime: now, LastTransitionTime: now,
		}},
	}
	got, err = deps.UpdateStatus(ctx, got, metav1.UpdateOptions{FieldManager: "typed-status"})
	step("update deployment status", got, err, raw)
	sc, err := deps.GetScale(ctx, "web", metav1.GetOptions{})
	step("get scale", sc, err, nil)
	if sc != nil {
		sc.Spec.Replicas = 4
		sc, err = deps.UpdateScale(ctx, "web", sc, metav1.UpdateOptions{})
		step("update scale", sc, err, nil)
	}
	_, err = deps.UpdateScale(ctx, "web", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: autoscalingv1.ScaleSpec{Replicas: -1}}, metav1.UpdateOptions{})
	step("update scale to -1", nil, err, nil)
	err = deps.Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationOrphan)})
	step("delete deployment (orphan, kept by its finalizer)", nil, err, nil)
	got, err = deps.Get(ctx, "web", metav1.GetOptions{})
	if got != nil {
		// a garbage collector (testenv's, kube-controller-manager's) removes "orphan" when it gets to it
		shown := got.DeepCopy()
		shown.Finalizers = nil
		for _, f := range got.Finalizers {
			if f != metav1.FinalizerOrphanDependents {
				shown.Finalizers = append(shown.Finalizers, f)
			}
		}
		shown.ManagedFields = nil
		step("read it while deleting", shown, err, nil)
	} else {
		step("read it while deleting", nil, err, nil)
	}
	if got != nil {
		got.Finalizers = nil
		_, err = deps.Update(ctx, got, metav1.UpdateOptions{})
		step("remove the finalizers", nil, err, nil)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := deps.Get(ctx, "web", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	step("gone", nil, err, nil)
}

func leases() {
	ls := kube.CoordinationV1().Leases(ns)
	t := metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC))
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "leader"}, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("a"), LeaseDurationSeconds: ptr(int32(15)), AcquireTime: &t, RenewTime: &t, LeaseTransitions: ptr(int32(0))}}
	raw := rawGet("/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases/leader")
	got, err := ls.Create(ctx, l, metav1.CreateOptions{})
	step("create lease", got, err, raw)
	if got != nil {
		r := metav1.NewMicroTime(t.Add(10 * time.Second))
		got.Spec.RenewTime = &r
		got.Spec.HolderIdentity = ptr("b")
		got.Spec.LeaseTransitions = ptr(int32(1))
		got, err = ls.Update(ctx, got, metav1.UpdateOptions{})
		step("renew lease", got, err, raw)
	}
}

func events() {
	t := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	ref := corev1.ObjectReference{Kind: "ConfigMap", Namespace: ns, Name: "cm", APIVersion: "v1", UID: "0000"}
	e := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "cm.1"},
		InvolvedObject: ref,
		Reason:         "Tested",
		Message:        "a protobuf event",
		Source:         corev1.EventSource{Component: "typed", Host: "h"},
		FirstTimestamp: t,
		LastTimestamp:  t,
		Count:          2,
		Type:           corev1.EventTypeWarning,
	}
	got, err := kube.CoreV1().Events(ns).Create(ctx, e, metav1.CreateOptions{})
	step("create core event", got, err, rawGet("/api/v1/namespaces/"+ns+"/events/cm.1"))
	mt := metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 5, 678901000, time.UTC))
	ev := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "cm.2"},
		EventTime:           mt,
		ReportingController: "example.com/typed",
		ReportingInstance:   "typed-1",
		Action:              "Testing",
		Reason:              "Tested",
		Regarding:           ref,
		Note:                "an events.k8s.io event",
		Type:                "Normal",
	}
	got2, err := kube.EventsV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{})
	step("create events.k8s.io event", got2, err, rawGet("/apis/events.k8s.io/v1/namespaces/"+ns+"/events/cm.2"))
}

func crds() {
	min, max := 1.0, 10.5
	schema := &apiextensionsv1.JSONSchemaProps{
		Type:     "object",
		Required: []string{"spec"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {
				Type:     "object",
				Required: []string{"size"},
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"size":   {Type: "number", Minimum: &min, Maximum: &max, ExclusiveMaximum: true, Default: &apiextensionsv1.JSON{Raw: []byte(`2`)}},
					"mode":   {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"fast"`)}, {Raw: []byte(`"slow"`)}}, Pattern: "^[a-z]+$", MaxLength: ptr(int64(8))},
					"tags":   {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}, XListType: ptr("set"), MaxItems: ptr(int64(5))},
					"labels": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
					"extra":  {Type: "object", XPreserveUnknownFields: ptr(true)},
					"port":   {XIntOrString: true, AnyOf: []apiextensionsv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}},
				},
				XValidations: apiextensionsv1.ValidationRules{{Rule: "self.size >= 1.0", Message: "too small"}},
			},
			"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"replicas": {Type: "integer", Format: "int32"}}},
		},
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "typeds.crdgen.test"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "crdgen.test",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "typeds", Singular: "typed", Kind: "Typed", ListKind: "TypedList", ShortNames: []string{"ty"}, Categories: []string{"all"}},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schema},
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
					Scale:  &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.size", StatusReplicasPath: ".status.replicas"},
				},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Size", Type: "number", JSONPath: ".spec.size", Priority: 1}},
			}},
		},
	}
	got, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{})
	if got != nil {
		got.Status = apiextensionsv1.CustomResourceDefinitionStatus{} // conditions carry times and messages of the controllers
	}
	raw := func() ([]byte, error) {
		b, err := kube.CoreV1().RESTClient().Get().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/typeds.crdgen.test").SetHeader("Accept", "application/json").DoRaw(ctx)
		if err != nil {
			return b, err
		}
		var v map[string]any
		_ = json.Unmarshal(b, &v)
		delete(v, "status")
		// the apiextensions controllers' status writes (and their managedFields entry) come when they come
		if md, ok := v["metadata"].(map[string]any); ok {
			if mf, ok := md["managedFields"].([]any); ok {
				kept := []any{}
				for _, e := range mf {
					if m, ok := e.(map[string]any); !ok || m["subresource"] != "status" {
						kept = append(kept, e)
					}
				}
				md["managedFields"] = kept
			}
		}
		return json.Marshal(v)
	}
	step("create crd", got, err, raw)
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		c, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "typeds.crdgen.test", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, cond := range c.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	step("crd established", nil, err, nil)
	err = ext.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, "typeds.crdgen.test", metav1.DeleteOptions{})
	step("delete crd", nil, err, nil)
}
