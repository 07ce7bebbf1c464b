// Command peering shows what a Consul cluster replicates to each of its peers: every
// exported service with the SNI the peer dials, the SPIFFE IDs it accepts and the protocol;
// the services replicated without a chain; those not replicated, and why in Consul's words;
// where meshscope's one-rule reading differs from Consul's union; and — given proposed
// entries — the replication diff and the writes Consul would refuse.
//
// With no flags it runs on the embedded sample. On your own cluster (CONSUL_HTTP_ADDR set),
// every file is what a Consul command prints:
//
//	consul config list -kind exported-services | xargs -I{} consul config read -kind exported-services -name {} > config.json
//	consul config list -kind service-resolver | xargs -I{} consul config read -kind service-resolver -name {} >> config.json
//	consul config list -kind service-defaults | xargs -I{} consul config read -kind service-defaults -name {} >> config.json
//	consul config read -kind proxy-defaults -name global >> config.json
//	curl -s $CONSUL_HTTP_ADDR/v1/catalog/services > catalog.json
//	curl -s $CONSUL_HTTP_ADDR/v1/health/service/mesh-gateway > gateways.json
//	for s in $(jq -r 'keys[]' catalog.json); do curl -s "$CONSUL_HTTP_ADDR/v1/health/connect/$s"; done > connect.json
//	curl -s $CONSUL_HTTP_ADDR/v1/connect/ca/roots > ca-roots.json
//	go run ./examples/peering -config config.json -catalog catalog.json -health gateways.json -health connect.json \
//	    -ca-roots ca-roots.json -datacenter dc1 [-peer east] [-o json]
//
// Sameness groups (Consul Enterprise) are read from -config too, or from
// `consul config read -kind sameness-group -name <g>` output with -sameness-groups.
//
// A dry run prints, per peer, how the replication would change and every write Consul would
// refuse, in its words: -new-exports proposed.json (exported-services entries),
// -new-resolvers (service-resolver entries) or -new-config (entries of any kind). A proposed
// entry replaces the current entry of the same kind and name; the others stay. The peers of
// both sides are diffed, so a peer the proposal adds or drops is shown too.
//
// -fail-on warning|error makes findings at or above that level exit with status 3.
package main

import (
	"cmp"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/peermeta"
)

//go:embed sample/*.json
var sample embed.FS

const prog = "peering"

const description = `peering: what a Consul cluster replicates to each of its peers.

Reads Consul's own output: config entries (consul config read), the catalog
(/v1/catalog/services), health (/v1/health/service/mesh-gateway, /v1/health/connect/<svc>),
and the CA roots (/v1/connect/ca/roots) for the trust domain. With no input flags it runs on
an embedded sample. See the package documentation for the exact commands.
`

// files is a repeatable flag.
type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

type options struct {
	config, exports, resolvers, groups     files
	newConfig, newExports, newResolvers    files
	health, gatewayServices                files
	catalog, caRoots, trustDomain          string
	datacenter, partition, namespace, peer string
	explain, output, failOn                string
	wide                                   bool
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.Var(&o.config, "config", "consul config read output of any kinds, mixed (file or directory; repeatable)")
	fs.Var(&o.exports, "exports", "exported-services entries only (consul config read output; repeatable)")
	fs.Var(&o.resolvers, "resolvers", "service-resolver entries only (consul config read output; repeatable)")
	fs.Var(&o.groups, "sameness-groups", "sameness-group entries only (consul config read output; repeatable)")
	fs.Var(&o.newConfig, "new-config", "dry run: proposed entries of any kind, replacing those of the same kind and name (repeatable)")
	fs.Var(&o.newExports, "new-exports", "dry run: proposed exported-services entries, replacing those of the same partition (repeatable)")
	fs.Var(&o.newResolvers, "new-resolvers", "dry run: proposed service-resolver entries, replacing those of the same service (repeatable)")
	fs.Var(&o.health, "health", "/v1/health/service/<name> or /v1/health/connect/<name> output: gateways and connect instances (repeatable)")
	fs.Var(&o.gatewayServices, "gateway-services", "/v1/catalog/gateway-services/<terminating gateway> output (repeatable)")
	fs.StringVar(&o.catalog, "catalog", "", "/v1/catalog/services output for -partition and -namespace")
	fs.StringVar(&o.caRoots, "ca-roots", "", "/v1/connect/ca/roots output: the trust domain")
	fs.StringVar(&o.trustDomain, "trust-domain", "", "the trust domain, instead of -ca-roots")
	fs.StringVar(&o.datacenter, "datacenter", "", "the exporting datacenter (required with your own input; the sample's is dc1)")
	fs.StringVar(&o.partition, "partition", "default", "the partition the peerings belong to")
	fs.StringVar(&o.namespace, "namespace", "default", "the namespace of the -catalog services")
	fs.StringVar(&o.peer, "peer", "", "show this peer only (the exporter's name for the peering)")
	fs.StringVar(&o.explain, "explain", "", "explain one service [partition/namespace/]name: its rule, its chain, its identities")
	fs.StringVar(&o.output, "o", "table", "output format: table or json (Consul's wire format)")
	fs.StringVar(&o.failOn, "fail-on", "", "exit with status 3 when a finding is at or above this level: note, warning or error")
	fs.BoolVar(&o.wide, "wide", false, "every SPIFFE ID and instance in the table")
	if done, code := cli.Parse(fs, args, description, stdout, stderr); done {
		return code
	}
	if !cli.CheckFormat(prog, o.output, stderr) || !cli.CheckFailOn(prog, o.failOn, stderr) {
		return cli.Usage
	}
	rep, err := build(o)
	if err != nil {
		return cli.Fail(prog, stderr, err)
	}
	code := cli.Emit(prog, stdout, stderr, o.output, rep, func(w io.Writer) error { return rep.print(w, o.wide) })
	return cli.Gate(prog, stderr, code, o.failOn, rep.findings())
}

// inputs is everything read, for one side of a dry run.
type inputs struct {
	entries entries
	catalog []exports.ServiceName
	health  health
	extra   []exports.ServiceName // behind terminating gateways
}

func (o options) own() bool {
	return len(o.config)+len(o.exports)+len(o.resolvers)+len(o.groups)+len(o.health)+len(o.gatewayServices) > 0 ||
		o.catalog != "" || o.caRoots != "" || o.trustDomain != ""
}

// read reads the inputs: the user's files, or the sample when they gave none.
func (o options) read() (inputs, string, string, error) {
	var in inputs
	if !o.own() {
		return readSample()
	}
	td, dc := o.trustDomain, o.datacenter
	var errs []error
	switch {
	case o.caRoots != "" && td != "":
		errs = append(errs, errors.New("-ca-roots and -trust-domain both given: give one"))
	case o.caRoots != "":
		data, err := os.ReadFile(o.caRoots)
		if err == nil {
			td, err = loadTrustDomain(o.caRoots, data)
		}
		errs = append(errs, err)
	case td == "":
		errs = append(errs, errors.New("the trust domain is required with your own input: -ca-roots (curl $CONSUL_HTTP_ADDR/v1/connect/ca/roots) or -trust-domain"))
	}
	if dc == "" {
		errs = append(errs, errors.New("-datacenter is required with your own input"))
	}
	for _, f := range []struct {
		paths files
		kind  string
	}{{o.config, ""}, {o.exports, "exported-services"}, {o.resolvers, "service-resolver"}, {o.groups, "sameness-group"}} {
		for _, p := range f.paths {
			errs = append(errs, loadConfig(p, f.kind, &in.entries))
		}
	}
	if o.catalog != "" {
		data, err := os.ReadFile(o.catalog)
		if err == nil {
			in.catalog, err = loadCatalog(o.catalog, data, o.partition, o.namespace)
		}
		errs = append(errs, err)
	}
	for _, p := range o.health {
		data, err := os.ReadFile(p)
		if err == nil {
			err = loadHealth(p, data, &in.health)
		}
		errs = append(errs, err)
	}
	for _, p := range o.gatewayServices {
		data, err := os.ReadFile(p)
		if err == nil {
			var got []exports.ServiceName
			got, err = loadGatewayServices(p, data)
			in.extra = append(in.extra, got...)
		}
		errs = append(errs, err)
	}
	return in, td, dc, errors.Join(errs...)
}

func readSample() (inputs, string, string, error) {
	var in inputs
	var errs []error
	data, name, err := cli.ReadFile(sample, "", "config.json")
	if err == nil {
		err = readEntries(name, data, "", &in.entries)
	}
	errs = append(errs, err)
	data, name, err = cli.ReadFile(sample, "", "catalog.json")
	if err == nil {
		in.catalog, err = loadCatalog(name, data, "default", "default")
	}
	errs = append(errs, err)
	for _, f := range []string{"health-mesh-gateway.json", "health-connect.json"} {
		data, name, err = cli.ReadFile(sample, "", f)
		if err == nil {
			err = loadHealth(name, data, &in.health)
		}
		errs = append(errs, err)
	}
	data, name, err = cli.ReadFile(sample, "", "ca-roots.json")
	td := ""
	if err == nil {
		td, err = loadTrustDomain(name, data)
	}
	errs = append(errs, err)
	return in, td, "dc1", errors.Join(errs...)
}

// input builds the replication input of one side for a peer.
func (in inputs) input(x *exports.Exports, exp peermeta.Exporter) peermeta.Input {
	return peermeta.Input{Exporter: exp, Exports: x, Catalog: in.catalog, Entries: in.entries.chain,
		Gateways: in.health.gateways, Connect: slices.Concat(in.health.connect, in.extra)}
}

// build reads everything and works out the report.
func build(o options) (*report, error) {
	in, td, dc, err := o.read()
	if err != nil {
		return nil, err
	}
	x, err := exports.CompileGroups(in.entries.chain.SamenessGroups, in.entries.exports...)
	if err != nil {
		return nil, cli.InFile("exported-services", err)
	}
	if _, err := chain.NewCompiler(in.entries.chain); err != nil {
		return nil, cli.InFile("service-resolver", err)
	}
	partitions := x.Partitions()
	if !slices.Contains(partitions, o.partition) {
		return nil, fmt.Errorf("-partition %q has no exported-services entry; partitions with one: %s", o.partition, list(partitions))
	}
	peers := peersOf(x, o.partition, in)
	after, err := o.proposed(in)
	if err != nil {
		return nil, err
	}
	// The dry run covers the peers of both sides: a change may add or drop a peer.
	dryPeers := peers
	if after != nil {
		dryPeers = union(peers, peersOf(after.x, o.partition, after.inputs))
	}
	if o.peer != "" {
		if !slices.Contains(dryPeers, o.peer) {
			return nil, fmt.Errorf("-peer %q: the exported-services entry of partition %q names no such peer; it names: %s", o.peer, o.partition, list(dryPeers))
		}
		if slices.Contains(peers, o.peer) {
			peers = []string{o.peer}
		} else {
			peers = nil // a peer only the proposed entries name
		}
		dryPeers = []string{o.peer}
	}
	rep := &report{TrustDomain: td, Datacenter: dc, Partition: o.partition}
	for _, p := range peers {
		exp := peermeta.Exporter{Peer: p, Partition: o.partition, Datacenter: dc, TrustDomain: td}
		r, err := peermeta.Replicate(in.input(x, exp))
		if err != nil {
			return nil, err
		}
		rep.Peers = append(rep.Peers, peerReport{Replication: r, Union: unionNotes(x, in, exp)})
	}
	rep.warnGateways(in.health.gateways)
	if o.explain != "" {
		e, err := explainService(o.explain, x, in, rep)
		if err != nil {
			return nil, err
		}
		rep.Explain = e
	}
	if after != nil {
		if err := rep.dryRun(in, x, *after, dryPeers); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// union returns the sorted union of two sorted lists.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// peersOf lists the peers the partition's exported-services entry names, sameness groups
// expanded, sorted.
func peersOf(x *exports.Exports, partition string, in inputs) []string {
	seen := map[string]bool{}
	e, _ := x.Entry(partition)
	for _, s := range e.Services {
		for _, c := range s.Consumers {
			if c.Peer != "" {
				seen[c.Peer] = true
			}
		}
	}
	for _, g := range in.entries.chain.SamenessGroups {
		for _, m := range g.Members {
			if m.Peer != "" && cmp.Or(g.Partition, "default") == partition && groupUsed(e, g.Name) {
				seen[m.Peer] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func groupUsed(e *exports.ConfigEntry, name string) bool {
	for _, s := range e.Services {
		for _, c := range s.Consumers {
			if c.SamenessGroup == name {
				return true
			}
		}
	}
	return false
}

// unionNotes says, for each service the peer does not receive under meshscope's one-rule
// reading but would under Consul's union of every rule naming the peer, which rule Consul
// would replicate it by.
func unionNotes(x *exports.Exports, in inputs, exp peermeta.Exporter) []string {
	var notes []string
	names := candidates(in, exp.Partition)
	for _, s := range names {
		ex := x.Explain(s)
		if ex.Match != nil && slices.ContainsFunc(ex.Match.Consumers, func(c exports.Consumer) bool { return c.Peer == exp.Peer }) {
			continue
		}
		for _, c := range ex.Candidates {
			if c.Verdict != exports.LessExact {
				continue
			}
			if slices.ContainsFunc(c.Reaches, func(r exports.ExpandedConsumer) bool { return r.Peer == exp.Peer }) {
				notes = append(notes, fmt.Sprintf("Consul would also replicate %s to %s via Services[%d]; meshscope applies only the most exact rule (Services[%d])",
					s.Name, exp.Peer, c.Rule, ex.Match.Rule))
				break
			}
		}
	}
	return notes
}

// candidates are the names a partition could export: the catalog's and the resolvers',
// canonical, sorted, without repeats.
func candidates(in inputs, partition string) []exports.ServiceName {
	var out []exports.ServiceName
	for _, s := range in.catalog {
		if s = s.Canonical(); s.Partition == partition {
			out = append(out, s)
		}
	}
	for _, r := range in.entries.chain.Resolvers {
		if s := (exports.ServiceName{Partition: r.Partition, Namespace: r.Namespace, Name: r.Name}).Canonical(); s.Partition == partition {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, exports.ServiceName.Compare)
	return slices.Compact(out)
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "(none)"
	}
	return strings.Join(xs, ", ")
}
