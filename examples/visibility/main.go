// Command visibility previews ServiceEntry visibility for a cluster: each entry's visibility
// and the policy that decided it, the hostnames and addresses claimed in several namespaces
// and who gets which answer, lint findings for the configuration, and — given a second mesh
// configuration — an audit of what the change would do, without applying anything.
//
// With no flags it runs on the embedded sample. On your own cluster:
//
//	kubectl get istiooperator -n istio-system -o yaml > mesh.yaml   # or the istio ConfigMap
//	kubectl get namespaces,serviceentries,services -A -o yaml > inventory.yaml
//	go run ./examples/visibility -mesh mesh.yaml -inventory inventory.yaml [-new-mesh proposed.yaml]
//	go run ./examples/visibility -explain-host api.github.com -client shop
//	go run ./examples/visibility -o json
package main

import (
	"embed"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/visibility"
)

//go:embed sample/*.yaml
var sample embed.FS

type options struct {
	mesh, inventory, newMesh string
	clusterDomain            string
	output                   string
	explainHost, explainAddr string
	client                   string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.mesh, "mesh", "", "mesh configuration: serviceEntryVisibility block, meshConfig, IstioOperator or istio ConfigMap (YAML or JSON); default: the embedded sample")
	fs.StringVar(&o.inventory, "inventory", "", "output of `kubectl get namespaces,serviceentries,services -A -o yaml`; default: the embedded sample")
	fs.StringVar(&o.newMesh, "new-mesh", "", "a proposed mesh configuration to audit against -mesh (with the embedded sample: its proposal)")
	fs.StringVar(&o.clusterDomain, "cluster-domain", "cluster.local", "the cluster's DNS domain, for Kubernetes Service hosts")
	fs.StringVar(&o.output, "o", "table", "output format: table or json")
	fs.StringVar(&o.explainHost, "explain-host", "", "explain which service answers this host for -client")
	fs.StringVar(&o.explainAddr, "explain-addr", "", "explain which service receives traffic to this IP for -client")
	fs.StringVar(&o.client, "client", "", "the client namespace for -explain-host and -explain-addr")
	if err := fs.Parse(args); err != nil || !cli.CheckFormat(prog, o.output, stderr) {
		return cli.Usage
	}
	rep, err := build(o)
	if err != nil {
		return cli.Fail(prog, stderr, err)
	}
	return cli.Emit(prog, stdout, stderr, o.output, rep, rep.print)
}

const prog = "visibility"

// report is everything the program shows; it is also the JSON output.
type report struct {
	Mesh      string                         `json:"mesh"`
	Inventory string                         `json:"inventory"`
	Enabled   bool                           `json:"enabled"`
	Lint      []visibility.Finding           `json:"lint"`
	Entries   []entryRow                     `json:"entries"`
	Conflicts []visibility.Conflict          `json:"conflicts"`
	Explain   []visibility.LookupExplanation `json:"explain,omitempty"`
	NewMesh   string                         `json:"newMesh,omitempty"`
	Audit     *visibility.Audit              `json:"audit,omitempty"`
}

type entryRow struct {
	Namespace string              `json:"namespace"`
	Name      string              `json:"name"`
	Hosts     []string            `json:"hosts"`
	Addresses []string            `json:"addresses,omitempty"`
	Decision  visibility.Decision `json:"decision"`
}

func loadResolver(path, sampleName string) (*visibility.Resolver, string, error) {
	data, name, err := cli.ReadFile(sample, path, sampleName)
	if err != nil {
		return nil, name, err
	}
	c, err := visibility.LoadConfig(data)
	if err != nil {
		return nil, name, inFile(name, err)
	}
	r, err := visibility.Compile(c)
	return r, name, inFile(name, err)
}

// inFile prefixes every joined error with the file it came from.
func inFile(name string, err error) error { return cli.InFile(name, err) }

func build(o options) (*report, error) {
	res, meshName, err := loadResolver(o.mesh, "mesh.yaml")
	if err != nil {
		return nil, err
	}
	data, invName, err := cli.ReadFile(sample, o.inventory, "inventory.yaml")
	if err != nil {
		return nil, err
	}
	inv, err := visibility.LoadInventory(data, o.clusterDomain)
	if err != nil {
		return nil, inFile(invName, err)
	}
	ix, err := visibility.NewIndex(res, inv)
	if err != nil {
		return nil, inFile(invName, err)
	}
	rep := &report{Mesh: meshName, Inventory: invName, Enabled: res.Enabled(), Lint: res.Lint(), Conflicts: ix.Conflicts(), Entries: []entryRow{}}
	if rep.Lint == nil {
		rep.Lint = []visibility.Finding{}
	}
	if rep.Conflicts == nil {
		rep.Conflicts = []visibility.Conflict{}
	}
	for s, d := range ix.Entries {
		if s.Kind == visibility.ServiceEntry {
			rep.Entries = append(rep.Entries, entryRow{Namespace: s.Namespace, Name: s.Name, Hosts: s.Hosts, Addresses: s.Addresses, Decision: d})
		}
	}
	if o.explainHost != "" {
		rep.Explain = append(rep.Explain, ix.ExplainHost(o.client, o.explainHost))
	}
	if o.explainAddr != "" {
		a, err := netip.ParseAddr(o.explainAddr)
		if err != nil {
			return nil, fmt.Errorf("-explain-addr: %q is not an IP", o.explainAddr)
		}
		rep.Explain = append(rep.Explain, ix.ExplainAddress(o.client, a))
	}
	if o.newMesh != "" || o.mesh == "" && o.inventory == "" {
		next, name, err := loadResolver(o.newMesh, "new-mesh.yaml")
		if err != nil {
			return nil, err
		}
		audit, err := visibility.Diff(res, next, inv)
		if err != nil {
			return nil, inFile(invName, err)
		}
		rep.NewMesh, rep.Audit = name, &audit
	}
	return rep, nil
}

func (r *report) print(w io.Writer) error {
	fmt.Fprintf(w, "mesh %s, inventory %s\n", r.Mesh, r.Inventory)
	if !r.Enabled {
		fmt.Fprintln(w, "serviceEntryVisibility is not configured: every entry is PUBLIC")
	}
	if len(r.Lint) > 0 {
		fmt.Fprintln(w, "\nLINT")
		for _, f := range r.Lint {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	rows := [][]string{{"SERVICE ENTRY", "HOSTS", "ADDRESSES", "VISIBILITY", "DECIDED BY"}}
	for _, e := range r.Entries {
		by := fmt.Sprintf("policies[%d]", e.Decision.Policy)
		if e.Decision.Policy < 0 {
			by = "default"
		}
		rows = append(rows, []string{e.Namespace + "/" + e.Name, strings.Join(e.Hosts, ","), orDash(strings.Join(e.Addresses, ",")), string(e.Decision.Visibility), by})
	}
	if err := table(w, rows); err != nil {
		return err
	}
	rows = [][]string{{"CLAIMED IN SEVERAL NAMESPACES", "CLIENT NAMESPACES", "GET"}}
	if len(r.Conflicts) == 0 {
		rows = append(rows, []string{"(none)", "", ""})
	}
	for _, c := range r.Conflicts {
		for i, a := range c.Answers {
			key := c.Key
			if i > 0 {
				key = ""
			}
			rows = append(rows, []string{key, namespaces(a.Clients), answer(a.Service)})
		}
	}
	if err := table(w, rows); err != nil {
		return err
	}
	for _, e := range r.Explain {
		fmt.Fprintf(w, "\n%s\n", e)
	}
	if r.Audit == nil {
		return nil
	}
	fmt.Fprintf(w, "\nAUDIT: %s -> %s (a dry run: nothing is applied)\n", r.Mesh, r.NewMesh)
	rows = [][]string{{"SERVICE ENTRY", "BEFORE", "AFTER", "GAINED BY", "LOST BY"}}
	if len(r.Audit.Entries) == 0 {
		rows = append(rows, []string{"(no visibility changes)", "", "", "", ""})
	}
	for _, e := range r.Audit.Entries {
		rows = append(rows, []string{e.Namespace + "/" + e.Name, e.Before.String(), e.After.String(), namespaces(e.Gained), namespaces(e.Lost)})
	}
	if err := table(w, rows); err != nil {
		return err
	}
	rows = [][]string{{"QUERY", "CLIENT NAMESPACES", "BEFORE", "AFTER"}}
	for _, q := range append(r.Audit.Hosts, r.Audit.Addresses...) {
		rows = append(rows, []string{q.Query, namespaces(q.Clients), answer(q.Before), answer(q.After)})
	}
	if len(rows) == 1 {
		rows = append(rows, []string{"(no answer changes)", "", "", ""})
	}
	return table(w, rows)
}

// table prints rows as aligned columns after a blank line.
func table(w io.Writer, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func answer(s *visibility.ServiceRef) string {
	if s == nil {
		return "(not in the mesh: upstream DNS / passthrough)"
	}
	return s.String()
}

// namespaces lists client namespaces, spelling out "*".
func namespaces(ns []string) string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n
		if n == visibility.AllOtherNamespaces {
			out[i] = "all others"
		}
	}
	return orDash(strings.Join(out, ", "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
