// Command visibility previews who sees and reaches what in an Istio mesh, for a cluster:
// each ServiceEntry's visibility and the policy that decided it, whether DNS answers for it,
// the hostnames and addresses claimed in several namespaces and who gets which answer, each
// Kubernetes Service's multicluster scope, what the sidecars of each class of proxies
// receive, from whom, which VirtualService routes each host and which DestinationRule they
// get, lint findings for the configuration read against the inventory, and — given a second
// mesh configuration or inventory, files to apply, or another Istio release — an audit of
// what the change would do, without applying anything, and the findings the proposed
// configuration introduces. Every answer is for one Istio release, which the first line
// names.
//
// With no flags it runs on the embedded sample. On your own cluster:
//
//	kubectl get istiooperator -n istio-system -o yaml > mesh.yaml   # or: kubectl get configmap istio -n istio-system -o yaml
//	kubectl get namespaces,serviceentries,services,sidecars,virtualservices,destinationrules,httproutes,grpcroutes,tcproutes,tlsroutes,referencegrants,gateways.gateway.networking.k8s.io -A -o yaml > inventory.yaml
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml [-new-mesh proposed.yaml] [-new-inventory proposed.yaml] [-fail-on warning]
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml -apply route.yaml [-apply more.yaml] [-namespace shop]
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml -istio 1.29 -new-istio 1.31
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml -explain-host api.github.com -client shop
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml -proxy shop -workload app=checkout
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml -explain-host api.github.com -proxy shop -workload app=checkout
//	go run ./examples/visibility -o json
//
// The sidecar table stops after a few thousand hosts and says how many classes of proxies it left out
// (each namespace of a large mesh may receive every public service); -proxy lists one class
// whole.
//
// With any input flag it needs both -mesh and -inventory: it never fills in a missing input
// from the sample. Service scope is shown as Istio applies it when istiod runs with
// AMBIENT_ENABLE_MULTI_NETWORK=true; without that flag (the default) every service is LOCAL.
// -h says how the release is found.
//
// Exit status: 0 the report was printed; 1 an input was wrong (every problem is printed, a
// line each, naming the file), or -client or -proxy names a namespace the inventory does not
// have, or -compatibility-version one the release of -mesh has no profile for; 2 any other
// usage error (an unknown flag, an -explain-addr that is not an IP, a -workload that is not
// a workload's labels, an -istio meshscope does not model, flags that do not go together, an
// input missing or given empty); 3 -fail-on found lint findings at or above its level, the
// current configuration's or those a proposed one introduces.
package main

import (
	"embed"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

//go:embed sample/*.yaml
var sample embed.FS

const prog = "visibility"

var description = `visibility: preview ServiceEntry visibility, DNS answers, service scope, lint and an audit
for a cluster, from kubectl output. It also shows the sidecar view: which Sidecar applies to
the proxies of each class (a namespace, or the workloads a workload Sidecar or
DestinationRule selects), which hosts they receive and from which service, which
VirtualService routes each host and which DestinationRule they get (the table stops after
` + strconv.Itoa(sidecarBudget) + ` hosts; -proxy NAMESPACE lists one namespace's proxies whole). On your own cluster:

  kubectl get istiooperator -n istio-system -o yaml > mesh.yaml   # or: kubectl get configmap istio -n istio-system -o yaml
  ` + inventory.DumpCommand + ` > inventory.yaml
  visibility -mesh mesh.yaml -inventory inventory.yaml [-new-mesh proposed.yaml] [-new-inventory proposed.yaml] [-fail-on warning]

(leave out a kind your cluster does not serve: kubectl fails on it). With no input flag at
all it runs on an embedded sample; with any, it needs both -mesh and -inventory (-new-mesh,
-new-inventory and -apply are optional), and an input flag given an empty value is refused.

Every answer is one Istio release's, named on the first line: -istio and
-compatibility-version, else the one -mesh names (an IstioOperator's spec.tag,
spec.components.pilot.tag, spec.compatibilityVersion, pilot env; Helm values' tag,
global.tag, compatibilityVersion, pilot.env; the istio ConfigMap names none), else the
newest meshscope models (` + mesh.Newest + `), said. A setting the release ignores is a finding;
an object its webhook refuses is refused. -new-istio and -new-compatibility-version dry-run
an upgrade: the proposed side runs that release (unset: what -new-mesh names, else the
current one); what a release refuses is left out of its view and listed.

-apply FILE (repeatable) previews kubectl apply -f FILE… against -inventory, as
-new-inventory does: objects without a namespace take -namespace (else default), one of the
kind, API group, namespace and name of an object in the dump replaces it (keeping its
creation time and status), a new one is created one second after the dump's youngest.

Service scope (meshConfig.serviceScopeConfigs, serviceSettings) is shown as Istio applies it
when istiod runs with AMBIENT_ENABLE_MULTI_NETWORK=true; that flag is off by default, and
without it every service stays LOCAL whatever the configuration says.
` + cli.ExitStatus(true, "-client or -proxy naming a namespace the inventory does not have (the message lists those it has)",
	"-compatibility-version naming one the release of -mesh has no profile for")

// inputFlags are the flags that name input; the sample runs only when none is given.
var inputFlags = []string{"mesh", "inventory", "new-mesh", "new-inventory", "apply"}

// scopeNote is what the report says wherever it shows service scope.
const scopeNote = "scope as Istio applies it when istiod runs with AMBIENT_ENABLE_MULTI_NETWORK=true; that flag is off by default, and without it every service is LOCAL"

type options struct {
	mesh, inventory, newMesh string
	clusterDomain            string
	output, failOn           string
	explainHost, explainAddr string
	client                   string
	clientSet                bool
	newInventory             string
	istio, compat            string    // -istio, -compatibility-version: the release answered for
	newIstio, newCompat      string    // … of the proposed side
	apply                    cli.Files // -apply: files to preview kubectl apply -f of
	namespace                string    // -namespace: kubectl's -n for -apply
	proxy, workload          string    // -proxy: a sidecar's namespace, to list or for -explain-host; -workload its labels
	proxySet                 bool
	labels                   labels.Set // -workload, read
	addr                     netip.Addr // -explain-addr, read
	sample                   bool       // no input flag given: run on the embedded sample
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.StringVar(&o.mesh, "mesh", "", "mesh configuration: kubectl get istiooperator (or the istio ConfigMap) -o yaml, Helm values, a meshConfig")
	fs.StringVar(&o.inventory, "inventory", "", inventory.DumpCommand)
	fs.StringVar(&o.newMesh, "new-mesh", "", "a proposed mesh configuration to audit against -mesh")
	fs.StringVar(&o.clusterDomain, "cluster-domain", "cluster.local", "the cluster's DNS domain: Service hosts and short names")
	fs.StringVar(&o.output, "o", "table", "output format: table or json")
	fs.StringVar(&o.failOn, "fail-on", "", "exit with status 3 when a finding is at or above this level: note, warning or error")
	fs.StringVar(&o.newInventory, "new-inventory", "", "a proposed inventory (Sidecars, VirtualServices, DestinationRules, exportTo, …) whose sidecar view to audit against -inventory")
	fs.StringVar(&o.istio, "istio", "", "the Istio release to answer for (1.30, 1.30.3), over what -mesh says; unset: what it says, else the newest")
	fs.StringVar(&o.compat, "compatibility-version", "", "the install's compatibilityVersion (1.29), over what -mesh says")
	fs.StringVar(&o.newIstio, "new-istio", "", "the release of the proposed side: an upgrade's dry run")
	fs.StringVar(&o.newCompat, "new-compatibility-version", "", "the compatibilityVersion of the proposed side")
	fs.Var(&o.apply, "apply", "preview kubectl apply -f of this file against -inventory (repeatable)")
	fs.StringVar(&o.namespace, "namespace", "", "kubectl's -n for -apply: the namespace of objects without one (default: default)")
	fs.StringVar(&o.explainHost, "explain-host", "", "explain which service answers this host for -client (ambient DNS), or what a sidecar in -proxy gets for it")
	fs.Func("proxy", "a sidecar proxy's namespace: list what its proxies receive, or with -explain-host explain one host", set(&o.proxy, &o.proxySet))
	fs.StringVar(&o.workload, "workload", "", "the workload labels of the -proxy sidecar, such as app=web,version=v1 (which workload Sidecar and DestinationRule apply)")
	fs.StringVar(&o.explainAddr, "explain-addr", "", "explain which service receives traffic to this IP for -client")
	fs.Func("client", "the client namespace for -explain-host and -explain-addr (\"\" for a client without one)", set(&o.client, &o.clientSet))
	if done, code := cli.Parse(fs, args, description, stdout, stderr); done {
		return code
	}
	if !cli.CheckFormat(prog, o.output, stderr) || !cli.CheckFailOn(prog, o.failOn, stderr) {
		return cli.Usage
	}
	given, ok := cli.Given(prog, fs, stderr, nil, inputFlags...) // every input flag names a file
	if !ok {
		return cli.Usage
	}
	if msg := o.usageProblem(given); msg != "" {
		fmt.Fprintf(stderr, "%s: %s\n", prog, msg)
		return cli.Usage
	}
	o.sample = !slices.ContainsFunc(inputFlags, func(f string) bool { return given[f] })
	if !o.sample && !cli.Missing(prog, given, stderr, "-mesh", "-inventory") {
		return cli.Usage
	}
	rep, err := build(o)
	if err != nil {
		return cli.Fail(prog, stderr, err)
	}
	code := cli.Emit(prog, stdout, stderr, o.output, rep, rep.print)
	return cli.Gate(prog, stderr, code, o.failOn, slices.Concat(rep.Findings, rep.Proposed))
}

// releaseProblem says what is wrong with the release flags -<prefix>istio and
// -<prefix>compatibility-version ("" when nothing is): a release meshscope does not model, a
// compatibilityVersion it ships no profile for. Without the release, the file's decides.
func releaseProblem(prefix, istio, compat string) string {
	if err := (&mesh.Config{Istio: istio, CompatibilityVersion: compat}).Validate(); istio != "" && err != nil {
		return "-" + prefix + "istio " + istio + ": " + strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	return ""
}

// set is a flag's setter that also records that the flag was given (its value may be "").
func set(v *string, given *bool) func(string) error {
	return func(s string) error { *v, *given = s, true; return nil }
}

// usageProblem says what is wrong with a combination of flags (given: those on the command
// line); "" when nothing is.
func (o *options) usageProblem(given map[string]bool) string {
	// The flags that ask a question or say how to read the input: an empty value (an unset
	// variable) would silently ask nothing, or another question.
	o.addr, _ = netip.ParseAddr(o.explainAddr)
	var empty []string
	for _, f := range []struct{ name, value string }{{"explain-host", o.explainHost}, {"explain-addr", o.explainAddr},
		{"proxy", o.proxy}, {"workload", o.workload}, {"cluster-domain", o.clusterDomain}, {"istio", o.istio},
		{"compatibility-version", o.compat}, {"new-istio", o.newIstio}, {"new-compatibility-version", o.newCompat}, {"namespace", o.namespace}} {
		if given[f.name] && f.value == "" {
			empty = append(empty, "-"+f.name)
		}
	}
	switch {
	case len(empty) > 0:
		return strings.Join(empty, ", ") + " given an empty value (an unset variable?): give a value, or leave the flag out"
	case (&inventory.Inventory{Domain: o.clusterDomain}).Validate() != nil: // the check the loaders make
		return fmt.Sprintf("-cluster-domain %q is not a DNS name", o.clusterDomain)
	case releaseProblem("", o.istio, o.compat) != "":
		return releaseProblem("", o.istio, o.compat)
	case releaseProblem("new-", o.newIstio, o.newCompat) != "":
		return releaseProblem("new-", o.newIstio, o.newCompat)
	case len(o.apply) > 0 && o.newInventory != "":
		return "-apply and -new-inventory each give the proposed inventory: give one"
	case o.namespace != "" && len(o.apply) == 0:
		return "-namespace needs -apply: it is the namespace of the applied objects that have none"
	case o.explainAddr != "" && !o.addr.IsValid():
		return fmt.Sprintf("-explain-addr: %q is not an IP", o.explainAddr)
	case o.clientSet && o.explainHost == "" && o.explainAddr == "":
		return "-client needs -explain-host or -explain-addr: the question to answer for the client's namespace"
	case o.clientSet && o.proxySet:
		return "-client and -proxy ask different questions: -client for ambient DNS and addresses, -proxy for what a sidecar gets; give one"
	case o.proxySet && o.explainAddr != "":
		return "-explain-addr answers for -client (ambient); a sidecar's view is by host: use -explain-host with -proxy"
	case o.workload != "" && !o.proxySet:
		return "-workload needs -proxy: the namespace of the sidecar whose labels they are"
	case o.workload != "":
		var err error
		if o.labels, err = sidecar.ParseWorkload(o.workload); err != nil {
			return "-workload " + err.Error()
		}
	case (o.explainHost != "" || o.explainAddr != "") && !o.clientSet && !o.proxySet:
		return "-explain-host and -explain-addr need -client: the answer depends on the client's namespace (-client \"\" for a client without one); for a sidecar's view use -explain-host with -proxy"
	case o.newInventory != "" && o.inventory == "":
		return "-new-inventory needs -inventory: the inventory it is a change of"
	}
	return ""
}
