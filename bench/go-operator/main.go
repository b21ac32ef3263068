// The DatabaseManager operator written on controller-runtime, for crdgen's operator benchmark
// (bench/go-peers.ts): the job of crdgen's generated operator (fixtures/databasemanager/
// expected/controllers/databasemanager/), written from controller-runtime's documented
// patterns (the kubebuilder book's CronJob controller, the examples/ of the module): a manager,
// one controller built with For(DatabaseManager).Owns(Deployment).Owns(Service), reads from the
// manager's cache, writes through its client, Events through its recorder.
//
// Per DatabaseManager: one Deployment named spec.deploymentName (official image, port and
// environment per spec.dbtype, labels app/controller, controller ownerReference), its replicas
// and pod template put back when they drift; a ClusterIP Service of the same name selecting its
// pods on the database port (type, selector and ports put back when they drift), as the
// generated operator keeps since it owns a Service; status.availableReplicas, observedGeneration and
// a Ready condition written through /status when they change; a Normal Synced Event after each
// successful reconcile, a Warning and Ready=False for a spec problem (not retried).
//
// Logs JSON lines on standard output (zap, controller-runtime's production logger): the
// benchmark reads the controller's "Starting workers" line and one "reconciled" line per reconcile.
//
// With --leader-elect the replicas share a Lease (--leader-election-namespace, -id, and the
// lease timings in seconds); --warmup starts a non-leader's sources so that its caches are full
// when it wins (controller-runtime's EnableWarmup).
//
//	go-operator --kubeconfig FILE [--workers 4] [--namespace NS] [--metrics-bind-address 0] [--health-probe-bind-address 0]
//	            [--leader-elect --leader-election-namespace NS --leader-election-id ID --lease-duration 15 --renew-deadline 10 --retry-period 2 --warmup]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	dbv1 "crdgen.local/bench/go-operator/api/v1alpha1"
)

const controllerName = "databasemanager-controller"

// database is how one spec.dbtype runs: its official image, port and password variable.
type database struct {
	image, portName, passwordEnv string
	port                         int32
}

var databases = map[string]database{
	"mysql":    {image: "mysql:8.4", port: 3306, portName: "mysql", passwordEnv: "MYSQL_ROOT_PASSWORD"},
	"postgres": {image: "postgres:17", port: 5432, portName: "postgres", passwordEnv: "POSTGRES_PASSWORD"},
	"redis":    {image: "redis:7.4", port: 6379, portName: "redis"},
	"mongodb":  {image: "mongo:8.0", port: 27017, portName: "mongodb"},
}

var dns1035Label = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// DatabaseManagerReconciler keeps one Deployment and one Service per DatabaseManager.
type DatabaseManagerReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder
}

// problem is a spec problem, reported on the object and not retried.
type problem struct{ reason, message string }

// desiredDeployment is the Deployment dm should own, or why it cannot have one.
func desiredDeployment(dm *dbv1.DatabaseManager) (*appsv1.Deployment, *problem) {
	name := dm.Spec.DeploymentName
	if name == "" || len(name) > 63 || !dns1035Label.MatchString(name) {
		return nil, &problem{"InvalidDeploymentName", fmt.Sprintf("spec.deploymentName %q must be a DNS-1035 label (it names the Deployment and its Service)", name)}
	}
	db, ok := databases[dm.Spec.Dbtype]
	if !ok {
		return nil, &problem{"UnknownDBType", fmt.Sprintf("spec.dbtype %q is not one of mysql, postgres, redis, mongodb", dm.Spec.Dbtype)}
	}
	replicas := int32(1)
	if dm.Spec.Replicas != nil {
		replicas = *dm.Spec.Replicas
	}
	labels := map[string]string{"app": name, "controller": dm.Name}
	container := corev1.Container{
		Name:  dm.Spec.Dbtype,
		Image: db.image,
		Ports: []corev1.ContainerPort{{Name: db.portName, ContainerPort: db.port, Protocol: corev1.ProtocolTCP}},
	}
	if db.passwordEnv != "" {
		container.Env = []corev1.EnvVar{{Name: db.passwordEnv, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: name + "-credentials"}, Key: "password",
		}}}}
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: dm.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{container}},
			},
		},
	}, nil
}

// desiredService is the Service that lets clients reach dep's database: same name and labels,
// selecting its pods, the database port under its name.
func desiredService(dep *appsv1.Deployment) *corev1.Service {
	port := dep.Spec.Template.Spec.Containers[0].Ports[0]
	labels := map[string]string{}
	for k, v := range dep.Labels {
		labels[k] = v
	}
	selector := map[string]string{}
	for k, v := range dep.Spec.Selector.MatchLabels {
		selector[k] = v
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: dep.Name, Namespace: dep.Namespace, Labels: labels},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selector,
			Ports:    []corev1.ServicePort{{Name: port.Name, Port: port.ContainerPort, TargetPort: intstr.FromString(port.Name), Protocol: corev1.ProtocolTCP}},
		},
	}
}

// Reconcile brings the world in line with one DatabaseManager.
func (r *DatabaseManagerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	logger := log.FromContext(ctx)
	started := time.Now()
	defer func() {
		result := "success"
		if err != nil {
			result = "error"
			if apierrors.IsConflict(err) {
				result = "requeue"
			}
		}
		logger.Info("reconciled", "key", req.String(), "result", result, "durationMs", float64(time.Since(started).Microseconds())/1000)
	}()

	var dm dbv1.DatabaseManager
	if err := r.Get(ctx, req.NamespacedName, &dm); err != nil {
		// deleted: the garbage collector removes what it owned
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	want, bad := desiredDeployment(&dm)
	if bad != nil {
		r.Recorder.Event(&dm, corev1.EventTypeWarning, bad.reason, bad.message)
		return ctrl.Result{}, r.updateStatus(ctx, &dm, nil, bad)
	}

	var dep appsv1.Deployment
	err = r.Get(ctx, types.NamespacedName{Namespace: want.Namespace, Name: want.Name}, &dep)
	switch {
	case apierrors.IsNotFound(err):
		if err := ctrl.SetControllerReference(&dm, want, r.Scheme); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, want); err != nil {
			return ctrl.Result{}, err
		}
		logger.Info("created Deployment", "deployment", want.Name)
		dep = *want
	case err != nil:
		return ctrl.Result{}, err
	}
	if !metav1.IsControlledBy(&dep, &dm) {
		msg := fmt.Sprintf("Resource %q already exists and is not managed by DatabaseManager %q", dep.Name, dm.Name)
		r.Recorder.Event(&dm, corev1.EventTypeWarning, "ErrResourceExists", msg)
		return ctrl.Result{}, fmt.Errorf("%s", msg)
	}
	if *dep.Spec.Replicas != *want.Spec.Replicas || !equality.Semantic.DeepDerivative(want.Spec.Template, dep.Spec.Template) {
		dep.Spec.Replicas = want.Spec.Replicas
		dep.Spec.Template = want.Spec.Template
		if err := r.Update(ctx, &dep); err != nil {
			return ctrl.Result{}, err
		}
		logger.Info("updated Deployment", "deployment", dep.Name)
	}

	svcWant := desiredService(want)
	var svc corev1.Service
	err = r.Get(ctx, types.NamespacedName{Namespace: svcWant.Namespace, Name: svcWant.Name}, &svc)
	switch {
	case apierrors.IsNotFound(err):
		if err := ctrl.SetControllerReference(&dm, svcWant, r.Scheme); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, svcWant); err != nil {
			return ctrl.Result{}, err
		}
		logger.Info("created Service", "service", svcWant.Name)
	case err != nil:
		return ctrl.Result{}, err
	default:
		if !metav1.IsControlledBy(&svc, &dm) {
			msg := fmt.Sprintf("Resource %q already exists and is not managed by DatabaseManager %q", svc.Name, dm.Name)
			r.Recorder.Event(&dm, corev1.EventTypeWarning, "ErrResourceExists", msg)
			return ctrl.Result{}, fmt.Errorf("%s", msg)
		}
		if svc.Spec.Type != svcWant.Spec.Type || !equality.Semantic.DeepEqual(svc.Spec.Selector, svcWant.Spec.Selector) || !equality.Semantic.DeepDerivative(svcWant.Spec.Ports, svc.Spec.Ports) {
			svc.Spec.Type = svcWant.Spec.Type
			svc.Spec.Selector = svcWant.Spec.Selector
			svc.Spec.Ports = svcWant.Spec.Ports
			if err := r.Update(ctx, &svc); err != nil {
				return ctrl.Result{}, err
			}
			logger.Info("updated Service", "service", svc.Name)
		}
	}
	if err := r.updateStatus(ctx, &dm, &dep, nil); err != nil {
		return ctrl.Result{}, err
	}
	r.Recorder.Event(&dm, corev1.EventTypeNormal, "Synced", "DatabaseManager synced successfully")
	return ctrl.Result{}, nil
}

// updateStatus writes availableReplicas, observedGeneration and the Ready condition through
// /status, only when they changed; the condition's time moves only when its status does.
func (r *DatabaseManagerReconciler) updateStatus(ctx context.Context, dm *dbv1.DatabaseManager, dep *appsv1.Deployment, bad *problem) error {
	status := dm.Status.DeepCopy()
	wanted := int32(1)
	if dm.Spec.Replicas != nil {
		wanted = *dm.Spec.Replicas
	}
	cond := metav1.Condition{Type: "Ready", ObservedGeneration: dm.Generation}
	switch {
	case bad != nil:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, bad.reason, bad.message
	case dep != nil:
		available := dep.Status.AvailableReplicas
		status.AvailableReplicas = &available
		cond.Status, cond.Reason = metav1.ConditionFalse, "DeploymentProgressing"
		if available >= wanted {
			cond.Status, cond.Reason = metav1.ConditionTrue, "DeploymentAvailable"
		}
		cond.Message = fmt.Sprintf("%d/%d replicas available", available, wanted)
	}
	if cond.Status != "" {
		meta.SetStatusCondition(&status.Conditions, cond)
	}
	generation := dm.Generation
	status.ObservedGeneration = &generation
	if equality.Semantic.DeepEqual(*status, dm.Status) {
		return nil
	}
	copy := dm.DeepCopy()
	copy.Status = *status
	return r.Status().Update(ctx, copy)
}

func main() {
	var workers int
	var metricsAddr, probeAddr, namespace string
	var qps float64
	var burst int
	var leaderElect, warmup bool
	var leNamespace, leID string
	var leaseSeconds, renewSeconds, retrySeconds float64
	flag.IntVar(&workers, "workers", 4, "concurrent reconciles")
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", "metrics endpoint address (0: off)")
	flag.StringVar(&probeAddr, "health-probe-bind-address", "0", "health probe address (0: off)")
	flag.StringVar(&namespace, "namespace", "", "watch only this namespace (default: all)")
	flag.Float64Var(&qps, "kube-api-qps", 0, "client-side rate limit (0: controller-runtime's default, none)")
	flag.IntVar(&burst, "kube-api-burst", 0, "client-side burst (with --kube-api-qps)")
	flag.BoolVar(&leaderElect, "leader-elect", false, "run only while holding the Lease")
	flag.StringVar(&leNamespace, "leader-election-namespace", "default", "the Lease's namespace")
	flag.StringVar(&leID, "leader-election-id", "databasemanager-operator", "the Lease's name")
	flag.Float64Var(&leaseSeconds, "lease-duration", 15, "seconds a non-leader waits before taking an unrenewed Lease")
	flag.Float64Var(&renewSeconds, "renew-deadline", 10, "seconds the leader tries to renew before giving up")
	flag.Float64Var(&retrySeconds, "retry-period", 2, "seconds between attempts to acquire or renew")
	flag.BoolVar(&warmup, "warmup", false, "start the controller's sources before leading (EnableWarmup)")
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse() // --kubeconfig is controller-runtime's own flag (pkg/client/config)
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts), zap.WriteTo(os.Stdout)))
	setupLog := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(dbv1.AddToScheme(scheme))

	cfg := ctrl.GetConfigOrDie()
	if qps > 0 {
		cfg.QPS, cfg.Burst = float32(qps), burst
	}
	cacheOpts := cache.Options{}
	if namespace != "" {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{namespace: {}}
	}
	seconds := func(s float64) *time.Duration { d := time.Duration(s * float64(time.Second)); return &d }
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Cache:                   cacheOpts,
		Metrics:                 metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress:  probeAddr,
		LeaderElection:          leaderElect,
		LeaderElectionID:        leID,
		LeaderElectionNamespace: leNamespace,
		LeaseDuration:           seconds(leaseSeconds),
		RenewDeadline:           seconds(renewSeconds),
		RetryPeriod:             seconds(retrySeconds),
	})
	if err != nil {
		setupLog.Error(err, "unable to create the manager")
		os.Exit(1)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		For(&dbv1.DatabaseManager{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Named(controllerName).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers, EnableWarmup: &warmup}).
		Complete(&DatabaseManagerReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorderFor(controllerName)})
	if err != nil {
		setupLog.Error(err, "unable to create the controller")
		os.Exit(1)
	}
	setupLog.Info("starting manager")
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		setupLog.Error(err, "problem running manager")
		os.Exit(1)
	}
}
