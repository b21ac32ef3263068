package main

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func ptr[T any](v T) *T { return &v }

func deployment(ts metav1.Time) *appsv1.Deployment {
	labels := map[string]string{"app": "web"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas:                ptr(int32(0)),
			MinReadySeconds:         5,
			RevisionHistoryLimit:    ptr(int32(3)),
			ProgressDeadlineSeconds: ptr(int32(600)),
			Paused:                  true,
			Selector:                &metav1.LabelSelector{MatchLabels: labels, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"db"}}}},
			Strategy:                appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr(intstr.FromString("50%")), MaxUnavailable: ptr(intstr.FromInt32(0))}},
			Template:                corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec()},
		},
		Status: appsv1.DeploymentStatus{
			ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, UnavailableReplicas: 1, TerminatingReplicas: ptr(int32(0)), CollisionCount: ptr(int32(1)),
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "r", Message: "m", LastUpdateTime: ts, LastTransitionTime: ts}},
		},
	}
}

func crd() *apiextensionsv1.CustomResourceDefinition {
	min, max := 1.0, 10.5
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "typeds.crdgen.test"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group:      "crdgen.test",
			Names:      apiextensionsv1.CustomResourceDefinitionNames{Plural: "typeds", Singular: "typed", Kind: "Typed", ListKind: "TypedList", ShortNames: []string{"ty"}},
			Scope:      apiextensionsv1.NamespaceScoped,
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true, Deprecated: true, DeprecationWarning: ptr("old"),
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Required: []string{"spec"}, Description: "d",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size":   {Type: "number", Minimum: &min, Maximum: &max, ExclusiveMaximum: true, Default: &apiextensionsv1.JSON{Raw: []byte(`2`)}, MultipleOf: ptr(0.5)},
							"mode":   {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"fast"`)}, {Raw: []byte(`"slow"`)}}, Pattern: "^[a-z]+$", MaxLength: ptr(int64(8)), Nullable: true, Format: "byte"},
							"tags":   {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}, XListType: ptr("set"), MaxItems: ptr(int64(5)), UniqueItems: true},
							"tuple":  {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{JSONSchemas: []apiextensionsv1.JSONSchemaProps{{Type: "string"}, {Type: "integer"}}}},
							"labels": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
							"closed": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: false}},
							"open":   {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true}},
							"deps":   {Type: "object", Dependencies: apiextensionsv1.JSONSchemaDependencies{"a": {Property: []string{"b"}}, "c": {Schema: &apiextensionsv1.JSONSchemaProps{Required: []string{"d"}}}}},
							"extra":  {Type: "object", XPreserveUnknownFields: ptr(true), XEmbeddedResource: true},
							"port":   {XIntOrString: true, AnyOf: []apiextensionsv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}},
							"ref":    {Ref: ptr("#/x"), Schema: "s", ID: "i", Example: &apiextensionsv1.JSON{Raw: []byte(`{"a":[1,true,null]}`)}, XMapType: ptr("atomic"), XListMapKeys: []string{"k"}},
						},
							XValidations: apiextensionsv1.ValidationRules{{Rule: "self.size >= 1.0", Message: "too small", MessageExpression: "'x'", Reason: ptr(apiextensionsv1.FieldValueForbidden), FieldPath: ".size", OptionalOldSelf: ptr(true)}},
						},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"replicas": {Type: "integer", Format: "int32", Minimum: ptr(0.0)}}},
					},
				}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
					Scale:  &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.size", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ptr(".status.selector")},
				},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Size", Type: "number", JSONPath: ".spec.size", Priority: 0, Format: "float"}},
				SelectableFields:         []apiextensionsv1.SelectableField{{JSONPath: ".spec.mode"}},
			}},
			PreserveUnknownFields: false,
		},
	}
}

var _ = resource.MustParse

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
