// Command visibility previews who sees and reaches what in an Istio mesh, for a cluster:
// each ServiceEntry's visibility and the policy that decided it, whether DNS answers for it,
// the hostnames and addresses claimed in several namespaces and who gets which answer, each
// Kubernetes Service's multicluster scope, what the sidecars of each class of proxies
// receive, from whom, which VirtualService — a user's, or one istiod made from Gateway API
// routes — routes each host and which DestinationRule they get, lint findings for the
// configuration read against the inventory (the routes' and the gateways' among them), and
// — given a second mesh configuration or inventory, files to apply, or another Istio release
// — a dry run of what the change would do to ztunnel's answers, sidecars, gateways and the
// status istiod writes on routes, without applying anything, and the findings the proposed
// configuration introduces. Every answer is for one Istio release, which the first line
// names.
//
// With no flags it runs on the embedded sample. On your own cluster (-h prints the inventory
// command, inventory.DumpCommand):
//
//	kubectl get istiooperator -n istio-system -o yaml > mesh.yaml   # or: kubectl get configmap istio -n istio-system -o yaml
//	kubectl get namespaces,serviceentries,services,sidecars,virtualservices,destinationrules,httproutes,grpcroutes,tcproutes,tlsroutes,referencegrants,gateways.gateway.networking.k8s.io -A -o yaml > inventory.yaml
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml [-new-mesh proposed.yaml] [-new-inventory proposed.yaml] [-fail-on warning]
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml -apply route.yaml [-apply more.yaml] [-namespace shop]
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml -istio 1.29 -new-istio 1.31
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml -explain-host api.github.com -client shop
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml -proxy shop -workload app=checkout
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml -explain-host reviews.default.svc.cluster.local -proxy default
//	go run ./examples/visibility -o json
//
// The sidecar table's ROUTED BY names, for each host, the VirtualService whose routes its
// virtual host holds on each HTTP port — the first in the listener's order that claims it,
// as sidecar.View.RouteTable builds it (sidecar.Answer.RoutedBy). It stops after a few
// thousand hosts and says how many classes of proxies it left out (each namespace of a large
// mesh may receive every public service); -proxy lists one class whole. The dry run lists a
// namespace's gateways (an ingress or egress gateway deployed there) where what they receive
// changes otherwise than what its sidecars receive.
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
	"cmp"
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

var description = `visibility: preview, from kubectl output, each ServiceEntry's visibility and DNS answers,
service scope, hosts claimed in several namespaces, what each class of sidecar proxies (a
namespace, or the workloads a workload Sidecar or DestinationRule selects) receives, from
which service, which VirtualService routes it (ROUTED BY: per HTTP port, the first of the
listener's that claims the host — one made from Gateway API routes named as istiod names it,
ns/ns~port~host; "(listener: X)": the most specific, only its TCP and TLS routes apply) and which
DestinationRule it gets, lint, and a dry run of a change for ztunnel, sidecars, a namespace's
gateways (where unlike its sidecars) and route status. The table stops after ` + strconv.Itoa(sidecarBudget) + ` hosts;
-proxy NAMESPACE lists one class whole. On your own cluster:

  kubectl get istiooperator -n istio-system -o yaml > mesh.yaml   # or: kubectl get configmap istio -n istio-system -o yaml
  ` + inventory.DumpCommand + ` > inventory.yaml
  visibility -mesh mesh.yaml -inventory inventory.yaml [-new-mesh proposed.yaml] [-new-inventory proposed.yaml | -apply change.yaml] [-fail-on warning]

(leave out a kind your cluster does not serve: kubectl fails on it). With no input flag it
runs on an embedded sample; with any, it needs both -mesh and -inventory. -apply previews
kubectl apply -f against -inventory, as kubectl would apply it (-namespace for its -n).

Every answer is one Istio release's, named on the first line: -istio and
-compatibility-version, else the one -mesh names (an IstioOperator's spec.tag,
spec.components.pilot.tag, spec.compatibilityVersion, pilot env; Helm values' tag,
global.tag, compatibilityVersion, pilot.env; the istio ConfigMap names none), else the
newest meshscope models (` + mesh.Newest + `), said. A setting the release ignores is a finding; an
object its webhook refuses is refused. -new-istio and -new-compatibility-version dry-run an
upgrade: the proposed side runs that release (unset: what -new-mesh names, else the current
one), each release's view leaves out what it refuses, and each change names its causes.
Service scope is shown as Istio applies it with AMBIENT_ENABLE_MULTI_NETWORK=true (off by
default: without it every service stays LOCAL).
` + cli.ExitStatus(true, "-client or -proxy naming a namespace the inventory does not have (the message lists those it has)",
	"-compatibility-version naming one the release of -mesh has no profile for")

// inputFlags are the flags that name input; the sample runs only when none is given.
var inputFlags = []string{"mesh", "inventory", "new-mesh", "new-inventory", "apply"}

// scopeNote is what the report says wherever it shows service scope.
const scopeNote = "scope as Istio applies it when istiod runs with AMBIENT_ENABLE_MULTI_NETWORK=true; that flag is off by default, and without it every service is LOCAL"

type options struct {
	mesh, inventory, newMesh string
	newInventory             string
	apply                    cli.Files // -apply: files to preview kubectl apply -f of
	namespace                string    // -namespace: kubectl's -n for -apply
	istio, compat            string    // -istio, -compatibility-version: the release answered for
	newIstio, newCompat      string    // … of the proposed side
	clusterDomain            string
	output, failOn           string
	explainHost, explainAddr string
	client                   string
	proxy, workload          string          // -proxy: a sidecar's namespace, to list or for -explain-host; -workload its labels
	given                    map[string]bool // the flags the command line set (-client and -proxy may be "")
	labels                   labels.Set      // -workload, read
	addr                     netip.Addr      // -explain-addr, read
	sample                   bool            // no input flag given: run on the embedded sample
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.StringVar(&o.mesh, "mesh", "", "mesh configuration: kubectl get istiooperator (or the istio ConfigMap) -o yaml, Helm values, a meshConfig")
	fs.StringVar(&o.inventory, "inventory", "", inventory.DumpCommand)
	fs.StringVar(&o.newMesh, "new-mesh", "", "a proposed mesh configuration to audit against -mesh")
	fs.StringVar(&o.newInventory, "new-inventory", "", "a proposed inventory (Sidecars, routes, DestinationRules, exportTo, …) to audit against -inventory")
	fs.Var(&o.apply, "apply", "preview kubectl apply -f of this file against -inventory (repeatable)")
	fs.StringVar(&o.namespace, "namespace", "", "kubectl's -n for -apply: the namespace of objects without one (default: default)")
	fs.StringVar(&o.istio, "istio", "", "the Istio release to answer for (1.30, 1.30.3), over what -mesh says; unset: what it says, else the newest")
	fs.StringVar(&o.compat, "compatibility-version", "", "the install's compatibilityVersion (1.29), over what -mesh says")
	fs.StringVar(&o.newIstio, "new-istio", "", "the release of the proposed side: an upgrade's dry run")
	fs.StringVar(&o.newCompat, "new-compatibility-version", "", "the compatibilityVersion of the proposed side")
	fs.StringVar(&o.clusterDomain, "cluster-domain", "cluster.local", "the cluster's DNS domain: Service hosts and short names")
	fs.StringVar(&o.output, "o", "table", "output format: table or json")
	fs.StringVar(&o.failOn, "fail-on", "", "exit with status 3 when a finding is at or above this level: note, warning or error")
	fs.StringVar(&o.explainHost, "explain-host", "", "explain which service answers this host for -client (ambient DNS), or what a sidecar in -proxy gets for it")
	fs.StringVar(&o.explainAddr, "explain-addr", "", "explain which service receives traffic to this IP for -client")
	fs.StringVar(&o.client, "client", "", "the client namespace for -explain-host and -explain-addr (\"\" for a client without one)")
	fs.StringVar(&o.proxy, "proxy", "", "a sidecar proxy's namespace: list what its proxies receive, or with -explain-host explain one host")
	fs.StringVar(&o.workload, "workload", "", "the workload labels of the -proxy sidecar, such as app=web,version=v1 (which workload Sidecar and DestinationRule apply)")
	if done, code := cli.Parse(fs, args, description, stdout, stderr); done {
		return code
	}
	if !cli.CheckFormat(prog, o.output, stderr) || !cli.CheckFailOn(prog, o.failOn, stderr) {
		return cli.Usage
	}
	var ok bool
	if o.given, ok = cli.Given(prog, fs, stderr, nil, inputFlags...); !ok { // every input flag names a file
		return cli.Usage
	}
	// The other flags but -client ask a question or say how to read the input: an empty
	// value (an unset variable) would silently ask nothing, or another question.
	var empty []string
	fs.Visit(func(f *flag.Flag) {
		if f.Value.String() == "" && f.Name != "client" && !slices.Contains(inputFlags, f.Name) {
			empty = append(empty, "-"+f.Name)
		}
	})
	if msg := o.usageProblem(empty); msg != "" {
		fmt.Fprintf(stderr, "%s: %s\n", prog, msg)
		return cli.Usage
	}
	o.sample = !slices.ContainsFunc(inputFlags, func(f string) bool { return o.given[f] })
	if !o.sample && !cli.Missing(prog, o.given, stderr, "-mesh", "-inventory") {
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

// usageProblem says what is wrong with a combination of flags (empty: those given an empty
// value); "" when nothing is.
func (o *options) usageProblem(empty []string) string {
	o.addr, _ = netip.ParseAddr(o.explainAddr)
	clientSet, proxySet := o.given["client"], o.given["proxy"]
	switch {
	case len(empty) > 0:
		return strings.Join(empty, ", ") + " given an empty value (an unset variable?): give a value, or leave the flag out"
	case (&inventory.Inventory{Domain: o.clusterDomain}).Validate() != nil: // the check the loaders make
		return fmt.Sprintf("-cluster-domain %q is not a DNS name", o.clusterDomain)
	case releaseProblem("", o.istio, o.compat) != "" || releaseProblem("new-", o.newIstio, o.newCompat) != "":
		return cmp.Or(releaseProblem("", o.istio, o.compat), releaseProblem("new-", o.newIstio, o.newCompat))
	case len(o.apply) > 0 && o.newInventory != "":
		return "-apply and -new-inventory each give the proposed inventory: give one"
	case o.namespace != "" && len(o.apply) == 0:
		return "-namespace needs -apply: it is the namespace of the applied objects that have none"
	case o.explainAddr != "" && !o.addr.IsValid():
		return fmt.Sprintf("-explain-addr: %q is not an IP", o.explainAddr)
	case clientSet && o.explainHost == "" && o.explainAddr == "":
		return "-client needs -explain-host or -explain-addr: the question to answer for the client's namespace"
	case clientSet && proxySet:
		return "-client and -proxy ask different questions: -client for ambient DNS and addresses, -proxy for what a sidecar gets; give one"
	case proxySet && o.explainAddr != "":
		return "-explain-addr answers for -client (ambient); a sidecar's view is by host: use -explain-host with -proxy"
	case o.workload != "" && !proxySet:
		return "-workload needs -proxy: the namespace of the sidecar whose labels they are"
	case (o.explainHost != "" || o.explainAddr != "") && !clientSet && !proxySet:
		return "-explain-host and -explain-addr need -client: the answer depends on the client's namespace (-client \"\" for a client without one); for a sidecar's view use -explain-host with -proxy"
	}
	if o.workload == "" {
		return ""
	}
	var err error
	if o.labels, err = sidecar.ParseWorkload(o.workload); err != nil {
		return "-workload " + err.Error()
	}
	return ""
}
