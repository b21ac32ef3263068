// One client-go informer process of crdgen's informer benchmark on the real control plane
// (bench/go-peers.ts), the Go counterpart of bench/lib/informer-client.ts. The job comes as one
// JSON argument; the report is one JSON line on standard output.
//
// Two informers, both with client-go's defaults (WatchListClient on: the initial sync is a
// streamed watch-list, as client-go v0.37 does it):
//   - typed: the informer code-generator writes for a CRD (NewFilteredDatabaseManagerInformer:
//     a typed REST client, cache.NewSharedIndexInformer over *DatabaseManager structs, the
//     namespace index), with the API types of ../go-operator/api/v1alpha1;
//   - dynamic: dynamicinformer's informer of unstructured objects.
//
// For each namespace of the job: the time until the handler has seen every object, CPU per
// object, Go heap (runtime.MemStats.HeapAlloc after GC) and RSS growth per cached object. Then
// the stream: an informer that lists the namespace at the exact resourceVersion before its
// objects were updated and watches from there, so the apiserver replays every update; events/s
// and CPU per event from the end of that list until the handler has seen every update.
//
//	go-informer '<json of job>'
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	dbv1 "crdgen.local/bench/go-operator/api/v1alpha1"
)

type syncJob struct {
	Namespace string `json:"namespace"`
	Count     int    `json:"count"`
}

type job struct {
	Kubeconfig string    `json:"kubeconfigPath"`
	Mode       string    `json:"mode"` // typed | dynamic
	Sync       []syncJob `json:"sync"`
	Stream     *struct {
		Namespace string `json:"namespace"`
		Events    int    `json:"events"`
		// ResourceVersion: the namespace's list before the updates (listed exactly at it).
		ResourceVersion string `json:"resourceVersion"`
	} `json:"stream,omitempty"`
}

type syncReport struct {
	Namespace          string  `json:"namespace"`
	Count              int     `json:"count"`
	Ms                 float64 `json:"ms"`
	CPUMicrosPerObject float64 `json:"cpuMicrosPerObject"`
	HeapPerObject      float64 `json:"heapPerObject"`
	RSSPerObject       float64 `json:"rssPerObject"`
	RSSBytes           float64 `json:"rssBytes"`
	// PeakRSSBytes: the process's peak RSS (VmHWM) when the handler had seen every object.
	PeakRSSBytes float64 `json:"peakRssBytes"`
}

type streamReport struct {
	EventsPerSecond   float64 `json:"eventsPerSecond"`
	CPUMicrosPerEvent float64 `json:"cpuMicrosPerEvent"`
}

type report struct {
	Sync   []syncReport  `json:"sync"`
	Stream *streamReport `json:"stream,omitempty"`
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go-informer: "+format+"\n", args...)
	os.Exit(1)
}

func cpuMicros() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail("getrusage: %v", err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1000
}

var vmRSS = regexp.MustCompile(`VmRSS:\s+(\d+) kB`)
var vmHWM = regexp.MustCompile(`VmHWM:\s+(\d+) kB`)

func statusBytes(re *regexp.Regexp) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fail("%v", err)
	}
	m := re.FindSubmatch(b)
	if m == nil {
		fail("no %s in /proc/self/status", re)
	}
	kb, _ := strconv.ParseFloat(string(m[1]), 64)
	return kb * 1024
}

func rssBytes() float64 { return statusBytes(vmRSS) }

// heapAfterGC is the live Go heap once garbage is collected.
func heapAfterGC() float64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc)
}

// noWatchList makes the reflector list, then watch: the stream's informer must list at an
// exact resourceVersion, which a watch-list cannot.
type noWatchList struct{ *cache.ListWatch }

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// clients builds what each mode lists and watches with, for one namespace.
type clients struct {
	typed   *rest.RESTClient
	params  apiruntime.ParameterCodec
	dynamic dynamic.Interface
}

func newClients(kubeconfig string) clients {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fail("%v", err)
	}
	scheme := apiruntime.NewScheme()
	if err := dbv1.AddToScheme(scheme); err != nil {
		fail("%v", err)
	}
	// as a code-generator clientset's setConfigDefaults
	typedCfg := rest.CopyConfig(cfg)
	typedCfg.GroupVersion = &dbv1.GroupVersion
	typedCfg.APIPath = "/apis"
	typedCfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	typedCfg.UserAgent = rest.DefaultKubernetesUserAgent()
	rc, err := rest.RESTClientFor(typedCfg)
	if err != nil {
		fail("%v", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		fail("%v", err)
	}
	return clients{typed: rc, params: apiruntime.NewParameterCodec(scheme), dynamic: dyn}
}

// listWatch is the typed informer's ListWatch (code-generator's NewFilteredXInformer).
func (c clients) listWatch(namespace string) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (apiruntime.Object, error) {
			out := &dbv1.DatabaseManagerList{}
			err := c.typed.Get().Namespace(namespace).Resource(dbv1.Resource.Resource).VersionedParams(&opts, c.params).Do(ctx).Into(out)
			return out, err
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.Watch = true
			return c.typed.Get().Namespace(namespace).Resource(dbv1.Resource.Resource).VersionedParams(&opts, c.params).Watch(ctx)
		},
	}
}

// informer builds the mode's informer for a namespace; exactRV lists at that version (stream).
func (c clients) informer(mode, namespace, exactRV string) cache.SharedIndexInformer {
	indexers := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	if exactRV != "" {
		var lw *cache.ListWatch
		var example apiruntime.Object
		if mode == "typed" {
			lw, example = c.listWatch(namespace), &dbv1.DatabaseManager{}
		} else {
			r := c.dynamic.Resource(dbv1.Resource).Namespace(namespace)
			lw = &cache.ListWatch{
				ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (apiruntime.Object, error) {
					return r.List(ctx, opts)
				},
				WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
					return r.Watch(ctx, opts)
				},
			}
			example = &unstructured.Unstructured{}
		}
		list := lw.ListWithContextFunc
		lw.ListWithContextFunc = func(ctx context.Context, opts metav1.ListOptions) (apiruntime.Object, error) {
			opts.ResourceVersion, opts.ResourceVersionMatch, opts.Limit = exactRV, metav1.ResourceVersionMatchExact, 0
			return list(ctx, opts)
		}
		return cache.NewSharedIndexInformerWithOptions(noWatchList{lw}, example, cache.SharedIndexInformerOptions{Indexers: indexers})
	}
	if mode == "typed" {
		return cache.NewSharedIndexInformerWithOptions(cache.ToListWatcherWithWatchListSemantics(c.listWatch(namespace), c.typed), &dbv1.DatabaseManager{}, cache.SharedIndexInformerOptions{Indexers: indexers})
	}
	return dynamicinformer.NewFilteredDynamicInformer(c.dynamic, dbv1.Resource, namespace, 0, indexers, nil).Informer()
}

// counter closes reached once n events were counted.
type counter struct {
	n       int64
	c       atomic.Int64
	reached chan struct{}
}

func newCounter(n int) *counter { return &counter{n: int64(n), reached: make(chan struct{})} }
func (c *counter) tick() {
	if c.c.Add(1) == c.n {
		close(c.reached)
	}
}

func wait(what string, ch <-chan struct{}) {
	select {
	case <-ch:
	case <-time.After(10 * time.Minute):
		fail("timed out waiting for %s", what)
	}
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: go-informer '<json job>'")
	}
	var j job
	if err := json.Unmarshal([]byte(os.Args[1]), &j); err != nil {
		fail("bad job: %v", err)
	}
	if j.Mode != "typed" && j.Mode != "dynamic" {
		fail("mode must be typed or dynamic, not %q", j.Mode)
	}
	c := newClients(j.Kubeconfig)
	rep := report{Sync: []syncReport{}}
	rss0 := rssBytes()
	for _, s := range j.Sync {
		heap0 := heapAfterGC()
		adds := newCounter(s.Count)
		inf := c.informer(j.Mode, s.Namespace, "")
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) { adds.tick() }}); err != nil {
			fail("%v", err)
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		cpu0 := cpuMicros()
		t0 := time.Now()
		go func() { inf.Run(stop); close(done) }()
		wait("the sync of "+s.Namespace, adds.reached)
		ms := float64(time.Since(t0).Microseconds()) / 1000
		cpu := cpuMicros() - cpu0
		peak := statusBytes(vmHWM)
		heap := heapAfterGC() - heap0
		rss := rssBytes()
		if got := len(inf.GetStore().ListKeys()); got != s.Count {
			fail("%s: %d objects cached, %d expected", s.Namespace, got, s.Count)
		}
		close(stop)
		<-done
		rep.Sync = append(rep.Sync, syncReport{s.Namespace, s.Count, ms, cpu / float64(s.Count), heap / float64(s.Count), (rss - rss0) / float64(s.Count), rss, peak})
		runtime.KeepAlive(inf)
	}
	if s := j.Stream; s != nil {
		heapAfterGC()
		listed := make(chan struct{})
		var listedAt time.Time
		var cpuListed float64
		adds := newCounter(s.Events)
		updates := newCounter(s.Events)
		inf := c.informer(j.Mode, s.Namespace, s.ResourceVersion)
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { adds.tick() },
			UpdateFunc: func(any, any) { updates.tick() },
		}); err != nil {
			fail("%v", err)
		}
		go func() {
			<-adds.reached
			listedAt, cpuListed = time.Now(), cpuMicros()
			close(listed)
		}()
		stop := make(chan struct{})
		go inf.Run(stop)
		wait("the stream's list", listed)
		wait("the stream's updates", updates.reached)
		ms := float64(time.Since(listedAt).Microseconds()) / 1000
		cpu := cpuMicros() - cpuListed
		close(stop)
		rep.Stream = &streamReport{EventsPerSecond: float64(s.Events) / ms * 1000, CPUMicrosPerEvent: cpu / float64(s.Events)}
	}
	out, _ := json.Marshal(rep)
	fmt.Println(string(out))
}
