// Package v1alpha1 is the DatabaseManager API (coolops.cn/v1alpha1) as a kubebuilder project
// declares it: the Go types of fixtures/databasemanager/crd.yaml, their registration, and the
// deep copies controller-gen writes for them (zz_generated.deepcopy.go in a kubebuilder tree;
// written out here so the bench needs no code generator).
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of DatabaseManager.
var GroupVersion = schema.GroupVersion{Group: "coolops.cn", Version: "v1alpha1"}

// Resource is the DatabaseManager resource.
var Resource = GroupVersion.WithResource("databasemanagers")

// AddToScheme registers DatabaseManager and DatabaseManagerList.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &DatabaseManager{}, &DatabaseManagerList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// DatabaseManagerSpec is the desired state of a DatabaseManager.
type DatabaseManagerSpec struct {
	DeploymentName string `json:"deploymentName,omitempty"`
	Replicas       *int32 `json:"replicas,omitempty"`
	Dbtype         string `json:"dbtype,omitempty"`
}

// DatabaseManagerStatus is the observed state of a DatabaseManager.
type DatabaseManagerStatus struct {
	AvailableReplicas  *int32             `json:"availableReplicas,omitempty"`
	ObservedGeneration *int64             `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// DatabaseManager runs a database as a Deployment.
type DatabaseManager struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DatabaseManagerSpec   `json:"spec,omitempty"`
	Status DatabaseManagerStatus `json:"status,omitempty"`
}

// DatabaseManagerList is a list of DatabaseManagers.
type DatabaseManagerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DatabaseManager `json:"items"`
}

// DeepCopyInto copies the receiver into out.
func (in *DatabaseManagerSpec) DeepCopyInto(out *DatabaseManagerSpec) {
	*out = *in
	if in.Replicas != nil {
		out.Replicas = new(int32)
		*out.Replicas = *in.Replicas
	}
}

// DeepCopyInto copies the receiver into out.
func (in *DatabaseManagerStatus) DeepCopyInto(out *DatabaseManagerStatus) {
	*out = *in
	if in.AvailableReplicas != nil {
		out.AvailableReplicas = new(int32)
		*out.AvailableReplicas = *in.AvailableReplicas
	}
	if in.ObservedGeneration != nil {
		out.ObservedGeneration = new(int64)
		*out.ObservedGeneration = *in.ObservedGeneration
	}
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

// DeepCopy returns a deep copy of the receiver.
func (in *DatabaseManagerStatus) DeepCopy() *DatabaseManagerStatus {
	if in == nil {
		return nil
	}
	out := new(DatabaseManagerStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies the receiver into out.
func (in *DatabaseManager) DeepCopyInto(out *DatabaseManager) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a deep copy of the receiver.
func (in *DatabaseManager) DeepCopy() *DatabaseManager {
	if in == nil {
		return nil
	}
	out := new(DatabaseManager)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *DatabaseManager) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies the receiver into out.
func (in *DatabaseManagerList) DeepCopyInto(out *DatabaseManagerList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]DatabaseManager, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a deep copy of the receiver.
func (in *DatabaseManagerList) DeepCopy() *DatabaseManagerList {
	if in == nil {
		return nil
	}
	out := new(DatabaseManagerList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *DatabaseManagerList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}
