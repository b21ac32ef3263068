//go:build tools

// sample-controller is a program: this file pins it in go.mod so `go build k8s.io/sample-controller` builds it.
package tools

import _ "k8s.io/sample-controller"
