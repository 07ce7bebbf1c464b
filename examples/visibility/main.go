// Command visibility previews ServiceEntry visibility for a cluster: each entry's visibility
// and the policy that decided it, whether DNS answers for it, the hostnames and addresses
// claimed in several namespaces and who gets which answer, each Kubernetes Service's
// multicluster scope, what the sidecars of each namespace (and of each workload Sidecar)
// receive and from whom, lint findings for the configuration read against the inventory,
// and — given a second mesh configuration or inventory — an audit of what the change would
// do, without applying anything, and the findings the proposed configuration introduces.
//
// With no flags it runs on the embedded sample. On your own cluster:
//
//	kubectl get istiooperator -n istio-system -o yaml > mesh.yaml   # or: kubectl get configmap istio -n istio-system -o yaml
//	kubectl get namespaces,serviceentries,services,sidecars -A -o yaml > inventory.yaml
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml [-new-mesh proposed.yaml] [-new-inventory proposed.yaml] [-fail-on warning]
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
//
// Exit status: 0 the report was printed; 1 an input was wrong (every problem is printed, a
// line each, naming the file), or -client or -proxy names a namespace the inventory does not
// have; 2 any other usage error (an unknown flag, an -explain-addr that is not an IP, a
// -workload that is not a workload's labels, flags that do not go together, an input
// missing or given empty); 3 -fail-on found lint findings at or above its level, the
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
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/visibility"
)

//go:embed sample/*.yaml
var sample embed.FS

const prog = "visibility"

var description = `visibility: preview ServiceEntry visibility, DNS answers, service scope, lint and an audit
for a cluster, from kubectl output. It also shows the sidecar view: which Sidecar applies to
the proxies of each namespace (and of each workload Sidecar) and which hosts they receive,
from which service (the table stops after ` + strconv.Itoa(sidecarBudget) + ` hosts; -proxy NAMESPACE lists one namespace's
proxies whole). On your own cluster:

  kubectl get istiooperator -n istio-system -o yaml > mesh.yaml   # or: kubectl get configmap istio -n istio-system -o yaml
  kubectl get namespaces,serviceentries,services,sidecars -A -o yaml > inventory.yaml
  visibility -mesh mesh.yaml -inventory inventory.yaml [-new-mesh proposed.yaml] [-new-inventory proposed.yaml] [-fail-on warning]

With no input flag at all it runs on an embedded sample; with any, it needs both -mesh and
-inventory (-new-mesh and -new-inventory are optional), and an input flag given an empty value
is refused.

Service scope (meshConfig.serviceScopeConfigs, serviceSettings) is shown as Istio applies it
when istiod runs with AMBIENT_ENABLE_MULTI_NETWORK=true; that flag is off by default, and
without it every service stays LOCAL whatever the configuration says.
` + cli.ExitStatus(true, "-client or -proxy naming a namespace the inventory does not have (the message lists those it has)")

// inputFlags are the flags that name input; the sample runs only when none is given.
var inputFlags = []string{"mesh", "inventory", "new-mesh", "new-inventory"}

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
	proxy, workload          string // -proxy: a sidecar's namespace, to list or for -explain-host; -workload its labels
	proxySet                 bool
	labels                   labels.Set // -workload, read
	sample                   bool       // no input flag given: run on the embedded sample
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.StringVar(&o.mesh, "mesh", "", "mesh configuration: kubectl get istiooperator (or the istio ConfigMap) -o yaml, Helm values, a meshConfig")
	fs.StringVar(&o.inventory, "inventory", "", "kubectl get namespaces,serviceentries,services,sidecars -A -o yaml")
	fs.StringVar(&o.newMesh, "new-mesh", "", "a proposed mesh configuration to audit against -mesh")
	fs.StringVar(&o.clusterDomain, "cluster-domain", "cluster.local", "the cluster's DNS domain: Service hosts and short names")
	fs.StringVar(&o.output, "o", "table", "output format: table or json")
	fs.StringVar(&o.failOn, "fail-on", "", "exit with status 3 when a finding is at or above this level: note, warning or error")
	fs.StringVar(&o.newInventory, "new-inventory", "", "a proposed inventory (Sidecars, exportTo, …) whose sidecar view to audit against -inventory")
	fs.StringVar(&o.explainHost, "explain-host", "", "explain which service answers this host for -client (ambient DNS), or what a sidecar in -proxy gets for it")
	fs.Func("proxy", "a sidecar proxy's namespace: list what its proxies receive, or with -explain-host explain one host", func(v string) error {
		o.proxy, o.proxySet = v, true
		return nil
	})
	fs.StringVar(&o.workload, "workload", "", "the workload labels of the -proxy sidecar, such as app=web,version=v1 (which workload Sidecar applies)")
	fs.StringVar(&o.explainAddr, "explain-addr", "", "explain which service receives traffic to this IP for -client")
	fs.Func("client", "the client namespace for -explain-host and -explain-addr (\"\" for a client without one)", func(v string) error {
		o.client, o.clientSet = v, true
		return nil
	})
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

// report is everything the program shows; it is also the JSON output.
type report struct {
	Mesh      string               `json:"mesh"`
	Inventory string               `json:"inventory"`
	Enabled   bool                 `json:"enabled"`
	Findings  []visibility.Finding `json:"findings"`
	// Proposed are the findings of the proposed configuration (-new-mesh, -new-inventory)
	// that the current one does not have: what the change introduces. -fail-on counts them.
	Proposed  []visibility.Finding           `json:"proposedFindings,omitempty"`
	Entries   []entryRow                     `json:"entries"`
	Services  []serviceRow                   `json:"services,omitempty"`
	Conflicts []visibility.Conflict          `json:"conflicts"`
	Explain   []visibility.LookupExplanation `json:"explain,omitempty"`
	Sidecars  []proxyRow                     `json:"sidecars"`
	// SidecarsOmitted counts the classes of proxies left out of Sidecars once it holds
	// sidecarBudget hosts (-proxy lists one class whatever its size).
	SidecarsOmitted int `json:"sidecarsOmitted,omitempty"`
	// SidecarExplain answers -explain-host for -proxy.
	SidecarExplain *visibility.SidecarExplanation `json:"sidecarExplain,omitempty"`
	NewMesh        string                         `json:"newMesh,omitempty"`
	NewInventory   string                         `json:"newInventory,omitempty"`
	SidecarAudit   []visibility.SidecarChange     `json:"sidecarAudit,omitempty"`
	Audit          *visibility.Audit              `json:"audit,omitempty"`
	Scope          []visibility.ScopeChange       `json:"scopeChanges,omitempty"`
	// ScopeNote says, wherever scope is shown, when Istio applies it.
	ScopeNote string `json:"scopeNote,omitempty"`

	hosts map[visibility.ServiceRef]string // each Kubernetes Service's host, for the scope table
}

type entryRow struct {
	Namespace string              `json:"namespace"`
	Name      string              `json:"name"`
	Hosts     []string            `json:"hosts"`
	Addresses []string            `json:"addresses,omitempty"`
	DNS       bool                `json:"dnsAnswers"`
	Decision  visibility.Decision `json:"decision"`
	DecidedBy string              `json:"decidedBy"`
}

type serviceRow struct {
	Namespace string           `json:"namespace"`
	Name      string           `json:"name"`
	Scope     visibility.Scope `json:"scope"`
	Why       string           `json:"why"`
}

// mesh is one mesh configuration read: its resolver, its service scope and its mesh scope.
type mesh struct {
	name      string
	res       *visibility.Resolver
	meshScope *visibility.MeshScope
	scope     *visibility.Scoper
	scoped    bool
	lint      []visibility.Finding
}

func loadMesh(path, sampleName, domain string) (mesh, error) {
	data, name, err := cli.ReadFile(sample, path, sampleName)
	if err != nil {
		return mesh{name: name}, err
	}
	m := mesh{name: name}
	c, err := visibility.LoadConfig(data)
	if err != nil {
		return m, fielderr.In(name, err)
	}
	if m.res, err = visibility.Compile(c); err != nil {
		return m, fielderr.In(name, err)
	}
	if m.meshScope, err = visibility.LoadMeshScope(data); err != nil {
		return m, fielderr.In(name, err)
	}
	sc, err := visibility.LoadScope(data)
	if err != nil {
		return m, fielderr.In(name, err)
	}
	if sc != nil {
		sc.Domain, m.scoped, m.lint = domain, true, visibility.LintScope(sc)
	}
	if m.scope, err = visibility.CompileScope(sc); err != nil {
		return m, fielderr.In(name, err)
	}
	return m, nil
}

func build(o options) (*report, error) {
	cur, err := loadMesh(o.mesh, "mesh.yaml", o.clusterDomain)
	if err != nil {
		return nil, err
	}
	data, invName, err := cli.ReadFile(sample, o.inventory, "inventory.yaml")
	if err != nil {
		return nil, err
	}
	inv, err := visibility.LoadInventory(data, o.clusterDomain)
	if err != nil {
		return nil, fielderr.In(invName, err)
	}
	indexed := inv // the data-plane view, with the mesh's default exportTo for its lint
	if cur.meshScope != nil {
		indexed.DefaultExportTo = cur.meshScope.DefaultServiceExportTo
	}
	ix, err := visibility.NewIndex(cur.res, indexed)
	if err != nil {
		return nil, fielderr.In(invName, err)
	}
	rep := &report{Mesh: cur.name, Inventory: invName, Enabled: cur.res.Enabled(), Conflicts: ix.Conflicts(), Entries: []entryRow{},
		hosts: map[visibility.ServiceRef]string{}}
	rep.lint(cur, ix)
	for s, d := range ix.Entries {
		switch s.Kind {
		case visibility.ServiceEntry:
			rep.Entries = append(rep.Entries, entryOf(s, d, cur.res))
		case visibility.KubernetesService:
			if len(s.Hosts) > 0 {
				rep.hosts[s.Ref()] = s.Hosts[0]
			}
			if cur.scoped && len(s.Hosts) > 0 {
				rep.Services = append(rep.Services, scopeOf(cur.scope, inv, s))
			}
		}
	}
	slices.SortFunc(rep.Entries, func(a, b entryRow) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	slices.SortFunc(rep.Services, func(a, b serviceRow) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	if rep.Conflicts == nil {
		rep.Conflicts = []visibility.Conflict{}
	}
	if err := rep.explain(o, ix); err != nil {
		return nil, err
	}
	if err := rep.sidecars(o, cur, inv, invName); err != nil {
		return nil, err
	}
	if o.newMesh != "" || o.sample {
		next, err := loadMesh(o.newMesh, "new-mesh.yaml", o.clusterDomain)
		if err != nil {
			return nil, err
		}
		audit, err := visibility.Diff(cur.res, next.res, inv)
		if err != nil {
			return nil, fielderr.In(invName, err)
		}
		rep.NewMesh, rep.Audit = next.name, &audit
		rep.Scope = visibility.DiffScope(cur.scope, next.scope, inv)
	}
	if len(rep.Services) > 0 || len(rep.Scope) > 0 {
		rep.ScopeNote = scopeNote
	}
	return rep, nil
}

// scopeOf is the scope row of the Kubernetes Service s: a service whose namespace the
// inventory lacks is one Istio does not know, and LOCAL.
func scopeOf(sc *visibility.Scoper, inv visibility.Inventory, s visibility.Service) serviceRow {
	var ns labels.Labels // nil: the namespace is not known
	if l, ok := inv.Namespaces[s.Namespace]; ok {
		ns = labels.Set(l)
	}
	e := sc.Explain(ns, labels.Set(s.Labels), s.Hosts[0])
	why := e.Reason
	if e.NamespaceUnknown {
		why = fmt.Sprintf("namespace %s is not in the inventory: Istio skips every serviceScopeConfig for a service whose namespace it does not know, so it is LOCAL", s.Namespace)
	}
	return serviceRow{Namespace: s.Namespace, Name: s.Name, Scope: e.Scope, Why: why}
}

// lint gathers the configuration's findings, the scope's, and the inventory's.
func (r *report) lint(m mesh, ix *visibility.Index) {
	r.Findings = slices.Concat([]visibility.Finding{}, m.res.Lint(), m.lint, ix.Lint())
}

func isAddr(s string) bool { _, err := netip.ParseAddr(s); return err == nil }

// usageProblem says what is wrong with a combination of flags (given: those on the command
// line); "" when nothing is.
func (o *options) usageProblem(given map[string]bool) string {
	// The flags that ask a question or say how to read the input: an empty value (an unset
	// variable) would silently ask nothing, or another question.
	var empty []string
	for _, f := range []struct{ name, value string }{{"explain-host", o.explainHost}, {"explain-addr", o.explainAddr},
		{"proxy", o.proxy}, {"workload", o.workload}, {"cluster-domain", o.clusterDomain}} {
		if given[f.name] && f.value == "" {
			empty = append(empty, "-"+f.name)
		}
	}
	switch {
	case len(empty) > 0:
		return strings.Join(empty, ", ") + " given an empty value (an unset variable?): give a value, or leave the flag out"
	case (&visibility.ScopeConfig{Domain: o.clusterDomain}).Validate() != nil: // the check the loaders make
		return fmt.Sprintf("-cluster-domain %q is not a DNS name", o.clusterDomain)
	case o.explainAddr != "" && !isAddr(o.explainAddr):
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
		if o.labels, err = parseWorkload(o.workload); err != nil {
			return err.Error()
		}
	case (o.explainHost != "" || o.explainAddr != "") && !o.clientSet && !o.proxySet:
		return "-explain-host and -explain-addr need -client: the answer depends on the client's namespace (-client \"\" for a client without one); for a sidecar's view use -explain-host with -proxy"
	case o.newInventory != "" && o.inventory == "":
		return "-new-inventory needs -inventory: the inventory it is a change of"
	}
	return ""
}

// explain answers -explain-host and -explain-addr for a client namespace that exists.
func (r *report) explain(o options, ix *visibility.Index) error {
	if o.explainHost == "" && o.explainAddr == "" || o.proxySet {
		return nil
	}
	if o.client != "" && !slices.Contains(ix.Namespaces(), o.client) {
		return fmt.Errorf("-client %q: the inventory has no such namespace; it has: %s", o.client, strings.Join(ix.Namespaces(), ", "))
	}
	if o.explainHost != "" {
		r.Explain = append(r.Explain, ix.ExplainHost(o.client, o.explainHost))
	}
	if o.explainAddr != "" {
		a, err := netip.ParseAddr(o.explainAddr)
		if err != nil {
			return fmt.Errorf("-explain-addr: %q is not an IP", o.explainAddr)
		}
		r.Explain = append(r.Explain, ix.ExplainAddress(o.client, a))
	}
	return nil
}

// entryOf is the row of the ServiceEntry s, decided d by r: its addresses as ztunnel's DNS
// proxy answers with them, and whether it answers at all.
func entryOf(s visibility.Service, d visibility.Decision, r *visibility.Resolver) entryRow {
	row := entryRow{Namespace: s.Namespace, Name: s.Name, Hosts: s.Hosts, Decision: d, DecidedBy: decidedBy(r, d)}
	for _, h := range s.Hosts {
		a := s.AddressesFor(h)
		for _, p := range a {
			row.Addresses = append(row.Addresses, address(p))
		}
		row.DNS = row.DNS || len(a) > 0
	}
	slices.Sort(row.Addresses)
	row.Addresses = slices.Compact(row.Addresses)
	return row
}

// address spells an IP without its /32 or /128, a CIDR as it is.
func address(p netip.Prefix) string {
	if p.IsSingleIP() {
		return p.Addr().String()
	}
	return p.String()
}

// decidedBy names what decided: a policy with its selectors, or the default.
func decidedBy(r *visibility.Resolver, d visibility.Decision) string {
	if d.Policy < 0 {
		return "default"
	}
	sels := r.PolicySelectors(d.Policy)
	for i, s := range sels {
		if s == "" {
			sels[i] = "{}"
		}
	}
	return fmt.Sprintf("policies[%d] (%s)", d.Policy, strings.Join(sels, " and "))
}
