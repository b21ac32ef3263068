// Prints, as one JSON object keyed by "<group>/<version>/<Kind>", every built-in kind of the
// given group versions as its empty Go struct converts to unstructured content (what the
// apiserver's field manager compares a created object with). Run by
// scripts/gen-typed-zero-objects.sh; not part of any build.
package main

import (
	"encoding/json"
	"os"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
)

func main() {
	s := runtime.NewScheme()
	if err := clientscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := apiextv1.AddToScheme(s); err != nil {
		panic(err)
	}
	want := map[string]bool{}
	for _, gv := range os.Args[1:] {
		want[gv] = true
	}
	out := map[string]interface{}{}
	for gvk := range s.AllKnownTypes() {
		if !want[gvk.GroupVersion().String()] || strings.HasSuffix(gvk.Kind, "List") || strings.HasSuffix(gvk.Kind, "Options") || gvk.Kind == "WatchEvent" || gvk.Kind == "Status" {
			continue
		}
		obj, err := s.New(gvk)
		if err != nil {
			panic(err)
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			panic(err)
		}
		out[gvk.Group+"/"+gvk.Version+"/"+gvk.Kind] = u
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
