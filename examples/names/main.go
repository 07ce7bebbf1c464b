// Command names builds every kind of SNI name and SPIFFE ID for a sample cluster, parses each
// back, and shows what validation says about a malformed one; -parse explains one name.
//
//	go run ./examples/names
//	go run ./examples/names -trust-domain 0f3c0f3c-1111-2222-3333-444444444444.consul -service api -namespace shop -partition retail -peer east
//	go run ./examples/names -parse spiffe://1234.consul/ns/default/dc/dc1/svc/web
//	go run ./examples/names -parse web.default.default.east.external.1234.consul -trust-domain 1234.consul -o json
//
// A Consul cluster's trust domain is the TrustDomain of `curl $CONSUL_HTTP_ADDR/v1/connect/ca/roots`.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"text/tabwriter"

	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/sni"
	"github.com/meshscope/meshscope/spiffe"
)

const prog = "names"

var description = `names: build every kind of SNI name and SPIFFE ID, parse each back, and show what
validation refuses; -parse explains one name.
` + cli.ExitStatus(false, "-parse given a name that does not parse",
	"a name part (-service, -peer, -trust-domain, …) that the names of the tour cannot hold, such as -peer East")

type options struct {
	trustDomain                           string
	service, subset, namespace, partition string
	datacenter, peer, query, agent        string
	k8sNamespace, serviceAccount          string
	parse, output                         string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.StringVar(&o.trustDomain, "trust-domain", "11111111-2222-3333-4444-555555555555.consul", "trust domain (a Consul cluster's: /v1/connect/ca/roots TrustDomain)")
	fs.StringVar(&o.service, "service", "web", "service name")
	fs.StringVar(&o.subset, "subset", "v2", "service subset")
	fs.StringVar(&o.namespace, "namespace", "default", "Consul namespace")
	fs.StringVar(&o.partition, "partition", "retail", "admin partition (\"default\" for none)")
	fs.StringVar(&o.datacenter, "datacenter", "dc1", "datacenter")
	fs.StringVar(&o.peer, "peer", "east", "peer name")
	fs.StringVar(&o.query, "query", "nearest-web", "prepared query name")
	fs.StringVar(&o.agent, "agent", "node-1", "client agent (node) name")
	fs.StringVar(&o.k8sNamespace, "k8s-namespace", "shop", "Kubernetes namespace of the Istio workload")
	fs.StringVar(&o.serviceAccount, "service-account", "cart", "Kubernetes service account of the Istio workload")
	fs.StringVar(&o.parse, "parse", "", "parse this SNI name (of -trust-domain) or SPIFFE ID and explain it, instead of the tour")
	fs.StringVar(&o.output, "o", "table", "output format: table or json")
	if done, code := cli.Parse(fs, args, description, stdout, stderr); done {
		return code
	}
	if !cli.CheckFormat(prog, o.output, stderr) {
		return cli.Usage
	}
	parseGiven := false
	fs.Visit(func(f *flag.Flag) { parseGiven = parseGiven || f.Name == "parse" })
	if parseGiven && o.parse == "" {
		fmt.Fprintf(stderr, "%s: -parse needs an SNI name or a SPIFFE ID to explain; without -parse the program runs the tour\n", prog)
		return cli.Usage
	}
	if o.parse != "" {
		p, err := explain(o.parse, o.trustDomain)
		if err != nil {
			return cli.Fail(prog, stderr, err)
		}
		return cli.Emit(prog, stdout, stderr, o.output, p, p.print)
	}
	t, err := tour(o)
	if err != nil {
		return cli.Fail(prog, stderr, err)
	}
	return cli.Emit(prog, stdout, stderr, o.output, t, t.print)
}

// row is one name of the tour.
type row struct {
	Kind       string   `json:"kind"`
	Value      string   `json:"value"`
	ParsesBack bool     `json:"parsesBack"`
	Problems   []string `json:"problems,omitempty"`
}

// tourReport is the tour: every kind of name, and two refusals.
type tourReport struct {
	TrustDomain string   `json:"trustDomain"`
	SNI         []row    `json:"sni"`
	SpiffeIDs   []row    `json:"spiffeIDs"`
	Refusals    []string `json:"refusals"`
}

func tour(o options) (*tourReport, error) {
	td := o.trustDomain
	t := &tourReport{TrustDomain: td}
	var problems []error
	for _, s := range []struct {
		label string
		name  sni.Name
	}{
		{"service", sni.Service{Service: o.service, Namespace: o.namespace, Datacenter: o.datacenter, TrustDomain: td}},
		{"service subset", sni.Service{Subset: o.subset, Service: o.service, Namespace: o.namespace, Datacenter: o.datacenter, TrustDomain: td}},
		{"service in partition", sni.Service{Service: o.service, Namespace: o.namespace, Partition: o.partition, Datacenter: o.datacenter, TrustDomain: td}},
		{"peered service", sni.Peered{Service: o.service, Namespace: o.namespace, Partition: o.partition, Peer: o.peer, TrustDomain: td}},
		{"mesh gateway", sni.Gateway{Datacenter: o.datacenter, TrustDomain: td}},
		{"mesh gateway in partition", sni.Gateway{Partition: o.partition, Datacenter: o.datacenter, TrustDomain: td}},
		{"prepared query", sni.Query{Query: o.query, Datacenter: o.datacenter, TrustDomain: td}},
		{"peering servers", sni.PeeringServer{Datacenter: o.datacenter, TrustDomain: td}},
	} {
		_, err := sni.Parse(s.name.String(), td)
		t.SNI = append(t.SNI, row{Kind: s.label, Value: s.name.String(), ParsesBack: err == nil, Problems: messages(s.name.Validate())})
		if err := s.name.Validate(); err != nil {
			problems = append(problems, fielderr.In(s.label, err))
		}
	}
	for _, s := range []struct {
		label string
		id    spiffe.Identity
	}{
		{"service", spiffe.Service{TrustDomain: td, Namespace: o.namespace, Datacenter: o.datacenter, Service: o.service}},
		{"service in partition", spiffe.Service{TrustDomain: td, Partition: o.partition, Namespace: o.namespace, Datacenter: o.datacenter, Service: o.service}},
		{"mesh gateway", spiffe.MeshGateway{TrustDomain: td, Partition: o.partition, Datacenter: o.datacenter}},
		{"client agent", spiffe.Agent{TrustDomain: td, Partition: o.partition, Datacenter: o.datacenter, Agent: o.agent}},
		{"server", spiffe.Server{TrustDomain: td, Datacenter: o.datacenter}},
		{"CA signing", spiffe.Signing{TrustDomain: td}},
		{"istio workload", spiffe.Workload{TrustDomain: "cluster.local", Namespace: o.k8sNamespace, ServiceAccount: o.serviceAccount}},
	} {
		_, err := spiffe.Parse(s.id.String())
		t.SpiffeIDs = append(t.SpiffeIDs, row{Kind: s.label, Value: s.id.String(), ParsesBack: err == nil, Problems: messages(s.id.Validate())})
		if err := s.id.Validate(); err != nil {
			problems = append(problems, fielderr.In(s.label, err))
		}
	}
	bad := sni.Service{Service: "web.default", Datacenter: "DC1", TrustDomain: td}
	t.Refusals = append(t.Refusals, "a service named \"web.default\" would forge the SNI of service \"web\" in namespace \"default\"; validation refuses it: "+strings.Join(messages(bad.Validate()), "; "))
	_, err := spiffe.Parse("spiffe://" + td + "/ns/foo%2Fbar/dc/dc1/svc/web")
	t.Refusals = append(t.Refusals, "a percent-encoded \"/\" would forge a SPIFFE path segment; Parse refuses it: "+strings.Join(messages(err), "; "))
	if len(problems) > 0 {
		return nil, fmt.Errorf("the flags give invalid names:\n%w", errors.Join(problems...))
	}
	return t, nil
}

// messages lists the message of each problem err joins, one per problem.
func messages(err error) []string {
	var out []string
	for _, e := range fielderr.Split(err) {
		out = append(out, e.Error())
	}
	return out
}

func (t *tourReport) print(w io.Writer) error {
	fmt.Fprintf(w, "trust domain %s\n", t.TrustDomain)
	for _, part := range []struct {
		title string
		rows  []row
	}{{"SNI NAME", t.SNI}, {"SPIFFE ID", t.SpiffeIDs}} {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "\n%s\tVALUE\tPARSES BACK\n", part.title)
		for _, r := range part.rows {
			back := "yes"
			if !r.ParsesBack {
				back = "no"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Kind, r.Value, back)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	for _, r := range t.Refusals {
		fmt.Fprintf(w, "%s\n", r)
	}
	return nil
}

// parsed is -parse's answer: which kind of name, and its components.
type parsed struct {
	Input      string            `json:"input"`
	Kind       string            `json:"kind"`
	Components map[string]string `json:"components"`
	order      []string
}

func explain(s, td string) (*parsed, error) {
	var v any
	var kind string
	if strings.HasPrefix(strings.ToLower(s), "spiffe:") {
		id, err := spiffe.Parse(s)
		if err != nil {
			return nil, err
		}
		v, kind = id, "SPIFFE ID: "+describe(id)
	} else {
		n, err := sni.Parse(s, td)
		if err != nil {
			return nil, err
		}
		v, kind = n, "SNI name: "+describe(n)
	}
	p := &parsed{Input: s, Kind: kind, Components: map[string]string{}}
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		name := rv.Type().Field(i).Name
		p.Components[name] = rv.Field(i).String()
		p.order = append(p.order, name)
	}
	return p, nil
}

// describe names the kind of a parsed name, in words.
func describe(v any) string {
	switch v.(type) {
	case sni.Service, spiffe.Service:
		return "a service"
	case sni.Peered:
		return "a service a peer exports, as the importer dials it"
	case sni.Gateway, spiffe.MeshGateway:
		return "a mesh gateway"
	case sni.Query:
		return "a prepared query"
	case sni.PeeringServer:
		return "the servers a peer dials to peer"
	case spiffe.Agent:
		return "a client agent"
	case spiffe.Server:
		return "a server"
	case spiffe.Signing:
		return "a certificate authority's signing certificates"
	case spiffe.Workload:
		return "an Istio workload (Kubernetes service account)"
	}
	return fmt.Sprintf("%T", v)
}

func (p *parsed) print(w io.Writer) error {
	fmt.Fprintf(w, "%s\n%s\n", p.Input, p.Kind)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, k := range p.order {
		fmt.Fprintf(tw, "  %s\t%s\n", k, p.Components[k])
	}
	return tw.Flush()
}
