// Writes what crdgen's test server needs to decode Kubernetes protobuf request bodies
// (application/vnd.kubernetes.protobuf, which client-go's typed clientsets send) into the JSON
// the apiserver would store, read by reflection from the Go types of k8s.io/api,
// k8s.io/apimachinery and k8s.io/apiextensions-apiserver at the versions of go.mod:
//
//	protobuf-messages -table   the message table: schema/kubernetes/<version>/protobuf-messages.json
//	protobuf-messages -samples objects in protobuf and as Go's encoding/json writes them once
//	                           decoded (test/testing/fixtures/protobuf-samples.json)
//
// For every field: its protobuf number, JSON name, type, and the Go facts JSON encoding depends
// on (pointer, omitempty, omitzero, inline). scripts/gen-protobuf-messages.sh writes both files.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
)

// The kinds whose bodies are decoded: every built-in kind crdgen's test server serves, the Scale
// of its /scale subresources, and DeleteOptions (sent under the group version of the request).
var kinds = []struct {
	apiVersion, kind string
	obj              any
}{
	{"v1", "Namespace", corev1.Namespace{}},
	{"v1", "ConfigMap", corev1.ConfigMap{}},
	{"v1", "Secret", corev1.Secret{}},
	{"v1", "Event", corev1.Event{}},
	{"v1", "Service", corev1.Service{}},
	{"apps/v1", "Deployment", appsv1.Deployment{}},
	{"coordination.k8s.io/v1", "Lease", coordinationv1.Lease{}},
	{"events.k8s.io/v1", "Event", eventsv1.Event{}},
	{"apiextensions.k8s.io/v1", "CustomResourceDefinition", apiextensionsv1.CustomResourceDefinition{}},
	{"admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", admissionregistrationv1.MutatingWebhookConfiguration{}},
	{"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", admissionregistrationv1.ValidatingWebhookConfiguration{}},
	{"autoscaling/v1", "Scale", autoscalingv1.Scale{}},
	{"*", "DeleteOptions", metav1.DeleteOptions{}},
}

// Types with their own JSON encoding, decoded by name.
var special = map[reflect.Type]string{
	reflect.TypeOf(metav1.Time{}):                                  "time",
	reflect.TypeOf(metav1.MicroTime{}):                             "microtime",
	reflect.TypeOf(metav1.Duration{}):                              "duration",
	reflect.TypeOf(resource.Quantity{}):                            "quantity",
	reflect.TypeOf(intstr.IntOrString{}):                           "intorstring",
	reflect.TypeOf(runtime.RawExtension{}):                         "rawextension",
	reflect.TypeOf(metav1.FieldsV1{}):                              "fieldsv1",
	reflect.TypeOf(apiextensionsv1.JSON{}):                         "json",
	reflect.TypeOf(apiextensionsv1.JSONSchemaPropsOrArray{}):       "schemaorarray",
	reflect.TypeOf(apiextensionsv1.JSONSchemaPropsOrBool{}):        "schemaorbool",
	reflect.TypeOf(apiextensionsv1.JSONSchemaPropsOrStringArray{}): "schemaorstringarray",
}

// Special types whose protobuf message is still walked (the decoder reads its fields first).
var walkSpecial = map[string]bool{"schemaorarray": true, "schemaorbool": true, "schemaorstringarray": true}

type message struct {
	Special string  `json:"special,omitempty"`
	Fields  [][]any `json:"fields,omitempty"`
}

type table struct {
	Source   string              `json:"source"`
	Kinds    map[string]string   `json:"kinds"`
	Messages map[string]*message `json:"messages"`
}

func name(t reflect.Type) string {
	p := t.PkgPath()
	for _, prefix := range []string{"k8s.io/api/", "k8s.io/apimachinery/pkg/apis/", "k8s.io/apimachinery/pkg/", "k8s.io/apiextensions-apiserver/pkg/apis/"} {
		p = strings.TrimPrefix(p, prefix)
	}
	return p + "." + t.Name()
}

func walk(t reflect.Type, out map[string]*message) string {
	n := name(t)
	if _, done := out[n]; done {
		return n
	}
	m := &message{Special: special[t]}
	out[n] = m
	if m.Special != "" && !walkSpecial[m.Special] {
		return n
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("protobuf")
		if !ok || tag == "-" {
			continue
		}
		parts := strings.Split(tag, ",")
		no, err := strconv.Atoi(parts[1])
		if err != nil {
			panic(fmt.Sprintf("%s.%s: protobuf tag %q", n, f.Name, tag))
		}
		jsonTag := f.Tag.Get("json")
		if jsonTag == "-" {
			continue
		}
		jparts := strings.Split(jsonTag, ",")
		flags := ""
		jname := jparts[0]
		for _, o := range jparts[1:] {
			switch o {
			case "omitempty":
				flags += "o"
			case "omitzero":
				flags += "z"
			case "inline":
				flags += "i"
			}
		}
		if jname == "" && f.Anonymous && !strings.Contains(flags, "i") {
			flags += "i"
		}
		if jname == "" && !strings.Contains(flags, "i") {
			jname = f.Name
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			flags += "p"
			ft = ft.Elem()
		}
		m.Fields = append(m.Fields, []any{no, jname, typeOf(ft, n+"."+f.Name, out), flags})
	}
	return n
}

func typeOf(t reflect.Type, where string, out map[string]*message) string {
	if _, ok := special[t]; ok {
		return "@" + walk(t, out)
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "int"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "uint"
	case reflect.Float64:
		return "double"
	case reflect.Float32:
		return "float"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
		e := t.Elem()
		if e.Kind() == reflect.Pointer {
			e = e.Elem()
		}
		return "[]" + typeOf(e, where, out)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(where + ": a map with keys that are not strings")
		}
		return "{}" + typeOf(t.Elem(), where, out)
	case reflect.Struct:
		return "@" + walk(t, out)
	}
	panic(fmt.Sprintf("%s: unsupported %s", where, t))
}

func writeJSON(v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	os.Stdout.Write(b.Bytes())
}

func main() {
	tableMode := flag.Bool("table", false, "print the message table")
	samplesMode := flag.Bool("samples", false, "print the samples")
	source := flag.String("source", "", "what the table was generated from (printed in it)")
	flag.Parse()
	switch {
	case *tableMode:
		t := table{Source: *source, Kinds: map[string]string{}, Messages: map[string]*message{}}
		for _, k := range kinds {
			t.Kinds[k.apiVersion+"/"+k.kind] = walk(reflect.TypeOf(k.obj), t.Messages)
		}
		writeJSON(t)
	case *samplesMode:
		writeJSON(samples())
	default:
		fmt.Fprintln(os.Stderr, "protobuf-messages: -table or -samples")
		os.Exit(2)
	}
}

type sample struct {
	Name     string          `json:"name"`
	Protobuf string          `json:"protobuf"`
	JSON     json.RawMessage `json:"json"`
}

// samples encodes objects as client-go does and records how the apiserver's Go types read them back.
func samples() []sample {
	sch := runtime.NewScheme()
	if err := scheme.AddToScheme(sch); err != nil {
		panic(err)
	}
	if err := apiextensionsv1.AddToScheme(sch); err != nil {
		panic(err)
	}
	for _, gv := range []schema.GroupVersion{{Version: "v1"}, {Group: "apps", Version: "v1"}} {
		metav1.AddToGroupVersion(sch, gv)
	}
	ser := protobuf.NewSerializer(sch, sch)
	var out []sample
	add := func(name string, obj runtime.Object, gvk schema.GroupVersionKind) {
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		var b bytes.Buffer
		if err := ser.Encode(obj, &b); err != nil {
			panic(fmt.Sprintf("%s: %v", name, err))
		}
		back, _, err := ser.Decode(b.Bytes(), nil, nil)
		if err != nil {
			panic(fmt.Sprintf("%s: %v", name, err))
		}
		js, err := json.Marshal(back)
		if err != nil {
			panic(err)
		}
		out = append(out, sample{Name: name, Protobuf: base64.StdEncoding.EncodeToString(b.Bytes()), JSON: js})
	}
	v1 := func(kind string) schema.GroupVersionKind { return corev1.SchemeGroupVersion.WithKind(kind) }
	ts := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 999, time.UTC))
	mt := metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC))
	add("empty configmap", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "empty"}}, v1("ConfigMap"))
	add("configmap", &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cm", GenerateName: "cm-", Namespace: "ns", Labels: map[string]string{"a": "b", "empty": ""}, Annotations: map[string]string{"n": "1"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Secret", Name: "s", UID: "u", Controller: ptr(true), BlockOwnerDeletion: ptr(false)}},
			Finalizers:      []string{"x/y"}, ResourceVersion: "7", Generation: 3, CreationTimestamp: ts, DeletionGracePeriodSeconds: ptr(int64(0)),
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &ts, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:a":{}}}`)}}}},
		Data:       map[string]string{"a": "1", "empty": ""},
		BinaryData: map[string][]byte{"bin": {0, 1, 255}, "none": {}},
		Immutable:  ptr(false),
	}, v1("ConfigMap"))
	add("secret", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{"k": []byte("v\x00")}, StringData: map[string]string{"u": "admin"}, Type: corev1.SecretTypeOpaque}, v1("Secret"))
	add("namespace", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating,
		Conditions: []corev1.NamespaceCondition{{Type: corev1.NamespaceDeletionContentFailure, Status: corev1.ConditionFalse, LastTransitionTime: ts}}}}, v1("Namespace"))
	add("core event", &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", FieldPath: "spec.containers{c}"}, Reason: "R", Message: "m", Source: corev1.EventSource{Component: "c"},
		FirstTimestamp: ts, LastTimestamp: ts, Count: 3, Type: "Warning", EventTime: mt, Series: &corev1.EventSeries{Count: 2, LastObservedTime: mt}, Related: &corev1.ObjectReference{Kind: "Node", Name: "n"}}, v1("Event"))
	add("events.k8s.io event", &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"}, EventTime: mt, ReportingController: "c", ReportingInstance: "i", Action: "A", Reason: "R", Regarding: corev1.ObjectReference{Kind: "Pod", Name: "p"},
		Note: "n", Type: "Normal", DeprecatedCount: 1}, eventsv1.SchemeGroupVersion.WithKind("Event"))
	add("service", &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": "web"}, SessionAffinity: corev1.ServiceAffinityClientIP,
		Ports:          []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), NodePort: 30080, Protocol: corev1.ProtocolTCP, AppProtocol: ptr("http")}, {Name: "dns", Port: 53, TargetPort: intstr.FromInt32(5353), Protocol: corev1.ProtocolUDP}},
		IPFamilyPolicy: ptr(corev1.IPFamilyPolicySingleStack), IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal,
		SessionAffinityConfig: &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr(int32(600))}},
	}}, v1("Service"))
	add("lease", &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l"}, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr(""), LeaseDurationSeconds: ptr(int32(0)), AcquireTime: &mt, RenewTime: &mt, LeaseTransitions: ptr(int32(4))}}, coordinationv1.SchemeGroupVersion.WithKind("Lease"))
	add("empty lease", &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l"}}, coordinationv1.SchemeGroupVersion.WithKind("Lease"))
	add("deployment", deployment(ts), appsv1.SchemeGroupVersion.WithKind("Deployment"))
	add("empty deployment", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}}, appsv1.SchemeGroupVersion.WithKind("Deployment"))
	add("scale", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: autoscalingv1.ScaleSpec{Replicas: 0}, Status: autoscalingv1.ScaleStatus{Replicas: 2, Selector: "a=b"}}, autoscalingv1.SchemeGroupVersion.WithKind("Scale"))
	add("delete options", &metav1.DeleteOptions{}, corev1.SchemeGroupVersion.WithKind("DeleteOptions"))
	add("delete options with everything", &metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0)), Preconditions: &metav1.Preconditions{UID: ptr(k8stypes.UID("u")), ResourceVersion: ptr("5")},
		OrphanDependents: ptr(false), PropagationPolicy: ptr(metav1.DeletePropagationForeground), DryRun: []string{"All"}, IgnoreStoreReadErrorWithClusterBreakingPotential: ptr(true)}, appsv1.SchemeGroupVersion.WithKind("DeleteOptions"))
	add("crd", crd(), apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	return out
}
