// A plain client-go dynamic informer, driven by crdgen's tests: it lists and watches one
// resource with client-go's reflector (WatchListClient and every other client-go default left
// as they are) and answers commands on standard input:
//
//	dump  prints the cache, one "namespace/name@resourceVersion" line per object (sorted),
//	      then "END <objects> adds=<n> updates=<n> deletes=<n>"
//	quit  (or end of input) stops
//
// It prints "SYNCED <objects>" once the first list is in the cache. client-go's own log
// (klog: reflector errors, relists) goes to standard error.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

func main() {
	klog.InitFlags(nil)
	kubeconfig := flag.String("kubeconfig", "", "path to the kubeconfig")
	group := flag.String("group", "", "API group of the resource")
	version := flag.String("version", "v1", "API version of the resource")
	resource := flag.String("resource", "", "resource (plural) to watch")
	namespace := flag.String("namespace", "", "namespace to watch (all when empty)")
	flag.Parse()
	if *resource == "" {
		fmt.Fprintln(os.Stderr, "informer: -resource is required")
		os.Exit(2)
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "informer: %v\n", err)
		os.Exit(1)
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "informer: %v\n", err)
		os.Exit(1)
	}
	gvr := schema.GroupVersionResource{Group: *group, Version: *version, Resource: *resource}
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, *namespace, nil)
	informer := factory.ForResource(gvr).Informer()

	var adds, updates, deletes atomic.Int64
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { adds.Add(1) },
		UpdateFunc: func(any, any) { updates.Add(1) },
		DeleteFunc: func(any) { deletes.Add(1) },
	}); err != nil {
		fmt.Fprintf(os.Stderr, "informer: %v\n", err)
		os.Exit(1)
	}

	stop := make(chan struct{})
	factory.Start(stop)
	var out sync.Mutex
	go func() {
		if !cache.WaitForCacheSync(stop, informer.HasSynced) {
			return
		}
		out.Lock()
		fmt.Printf("SYNCED %d\n", len(informer.GetStore().ListKeys()))
		out.Unlock()
	}()

	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "dump":
			var lines []string
			for _, o := range informer.GetStore().List() {
				u := o.(*unstructured.Unstructured)
				key := u.GetName()
				if ns := u.GetNamespace(); ns != "" {
					key = ns + "/" + key
				}
				lines = append(lines, key+"@"+u.GetResourceVersion())
			}
			sort.Strings(lines)
			out.Lock()
			for _, l := range lines {
				fmt.Println(l)
			}
			fmt.Printf("END %d adds=%d updates=%d deletes=%d\n", len(lines), adds.Load(), updates.Load(), deletes.Load())
			out.Unlock()
		case "quit":
			close(stop)
			factory.Shutdown()
			return
		case "":
		default:
			fmt.Fprintf(os.Stderr, "informer: unknown command %q\n", in.Text())
		}
	}
	close(stop)
	factory.Shutdown()
}
