// Command names builds every kind of SNI name and SPIFFE ID for a sample cluster, parses each
// back, and shows what validation says about a malformed one.
//
//	go run ./examples/names
//	go run ./examples/names -cluster-id 0f3c… -service api -namespace shop -partition retail -peer east
//	go run ./examples/names -parse spiffe://1234.consul/ns/default/dc/dc1/svc/web
//	go run ./examples/names -parse web.default.default.east.external.1234.consul -trust-domain 1234.consul
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/meshscope/meshscope/sni"
	"github.com/meshscope/meshscope/spiffe"
)

type options struct {
	clusterID, trustDomain                string
	service, subset, namespace, partition string
	datacenter, peer, query, agent        string
	k8sNamespace, serviceAccount          string
	parse                                 string
}

func main() {
	var o options
	flag.StringVar(&o.clusterID, "cluster-id", "11111111-2222-3333-4444-555555555555", "Consul cluster ID; the trust domain is derived from it")
	flag.StringVar(&o.trustDomain, "trust-domain", "", "trust domain (overrides -cluster-id)")
	flag.StringVar(&o.service, "service", "web", "service name")
	flag.StringVar(&o.subset, "subset", "v2", "service subset")
	flag.StringVar(&o.namespace, "namespace", "default", "Consul namespace")
	flag.StringVar(&o.partition, "partition", "retail", "admin partition (\"default\" for none)")
	flag.StringVar(&o.datacenter, "datacenter", "dc1", "datacenter")
	flag.StringVar(&o.peer, "peer", "east", "peer name")
	flag.StringVar(&o.query, "query", "nearest-web", "prepared query name")
	flag.StringVar(&o.agent, "agent", "node-1", "client agent (node) name")
	flag.StringVar(&o.k8sNamespace, "k8s-namespace", "shop", "Kubernetes namespace of the Istio workload")
	flag.StringVar(&o.serviceAccount, "service-account", "cart", "Kubernetes service account of the Istio workload")
	flag.StringVar(&o.parse, "parse", "", "parse this SNI name or SPIFFE ID and explain it, instead of the tour")
	flag.Parse()
	if err := run(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "names:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, o options) error {
	td := o.trustDomain
	if td == "" {
		td = spiffe.ConsulTrustDomain(o.clusterID)
	}
	if o.parse != "" {
		return explain(w, o.parse, td)
	}
	fmt.Fprintf(w, "trust domain %s\n\n", td)

	snis := []struct {
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
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SNI NAME\tVALUE\tPARSES BACK")
	var problems []error
	for _, s := range snis {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.label, s.name, roundTrip(s.name.String(), func(n string) (fmt.Stringer, error) { return sni.Parse(n, td) }))
		if err := s.name.Validate(); err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", s.label, err))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)

	ids := []struct {
		label string
		id    spiffe.Identity
	}{
		{"service", spiffe.Service{TrustDomain: td, Namespace: o.namespace, Datacenter: o.datacenter, Service: o.service}},
		{"service in partition", spiffe.Service{TrustDomain: td, Partition: o.partition, Namespace: o.namespace, Datacenter: o.datacenter, Service: o.service}},
		{"mesh gateway", spiffe.MeshGateway{TrustDomain: td, Partition: o.partition, Datacenter: o.datacenter}},
		{"client agent", spiffe.Agent{TrustDomain: td, Partition: o.partition, Datacenter: o.datacenter, Agent: o.agent}},
		{"server", spiffe.Server{TrustDomain: td, Datacenter: o.datacenter}},
		{"istio workload", spiffe.Workload{TrustDomain: "cluster.local", Namespace: o.k8sNamespace, ServiceAccount: o.serviceAccount}},
	}
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SPIFFE ID\tVALUE\tPARSES BACK")
	for _, s := range ids {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.label, s.id, roundTrip(s.id.String(), func(n string) (fmt.Stringer, error) { return spiffe.Parse(n) }))
		if err := s.id.Validate(); err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", s.label, err))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nA service named \"web.default\" would forge the SNI of service \"web\" in namespace \"default\"; validation refuses it:")
	bad := sni.Service{Service: "web.default", Datacenter: "DC1", TrustDomain: td}
	fmt.Fprintf(w, "  %s\n", indent(bad.Validate().Error()))
	fmt.Fprintln(w, "A percent-encoded \"/\" would forge a SPIFFE path segment; Parse refuses it:")
	_, err := spiffe.Parse("spiffe://" + td + "/ns/foo%2Fbar/dc/dc1/svc/web")
	fmt.Fprintf(w, "  %s\n", err)

	if len(problems) > 0 {
		return fmt.Errorf("the flags give invalid names:\n%w", errors.Join(problems...))
	}
	return nil
}

func roundTrip(s string, parse func(string) (fmt.Stringer, error)) string {
	v, err := parse(s)
	switch {
	case err != nil:
		return "no: " + err.Error()
	case v.String() != s:
		return "no: parses as " + v.String()
	}
	return "yes"
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

// explain parses s as a SPIFFE ID (when it has the scheme) or as an SNI name of td.
func explain(w io.Writer, s, td string) error {
	if strings.HasPrefix(strings.ToLower(s), "spiffe:") {
		id, err := spiffe.Parse(s)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%#v\n", id)
		return nil
	}
	n, err := sni.Parse(s, td)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%#v\n", n)
	return nil
}
