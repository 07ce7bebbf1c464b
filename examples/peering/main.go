// Command peering shows what a Consul-style cluster replicates to each of its peers: every
// exported service with the SNI the peer dials, the SPIFFE IDs it accepts and the protocol,
// the services that fail to replicate (and why), and those deliberately excluded.
//
// With no flags it runs on the embedded sample. On your own cluster:
//
//	consul config read -kind exported-services -name default > exported-services.json
//	for r in $(consul config list -kind service-resolver); do consul config read -kind service-resolver -name $r; done > resolvers.json
//	go run ./examples/peering -exports exported-services.json -resolvers resolvers.json \
//	    -catalog catalog.json -cluster-id $(consul operator raft ... cluster id) -datacenter dc1 [-peer east] [-o json]
//
// The catalog file lists the services with their protocols and the local mesh gateway
// instances (the output of /v1/health/service/mesh-gateway):
//
//	{"DefaultProtocol": "tcp", "Services": [{"Name": "web", "Namespace": "default", "Protocol": "http"}],
//	 "Gateways": [ ...as /v1/health/service/mesh-gateway returns them... ]}
package main

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/internal/strict"
	"github.com/meshscope/meshscope/peermeta"
	"github.com/meshscope/meshscope/spiffe"
)

//go:embed sample/*.json
var sample embed.FS

type options struct {
	exports, resolvers, catalog string
	clusterID, trustDomain      string
	datacenter, partition, peer string
	output                      string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.exports, "exports", "", "exported-services entries (consul config read JSON; one or several); default: the embedded sample")
	fs.StringVar(&o.resolvers, "resolvers", "", "service-resolver entries (consul config read JSON; one, several, or a list); default: the embedded sample")
	fs.StringVar(&o.catalog, "catalog", "", "services with protocols and the mesh gateway instances (see the command's documentation); default: the embedded sample")
	fs.StringVar(&o.clusterID, "cluster-id", "11111111-2222-3333-4444-555555555555", "the exporting cluster's ID; its trust domain is derived from it")
	fs.StringVar(&o.trustDomain, "trust-domain", "", "the exporting cluster's trust domain (overrides -cluster-id)")
	fs.StringVar(&o.datacenter, "datacenter", "dc1", "the exporting datacenter")
	fs.StringVar(&o.partition, "partition", "default", "the partition the peerings belong to")
	fs.StringVar(&o.peer, "peer", "", "the peer to show (the exporter's name for the peering); default: every peer the exports name")
	fs.StringVar(&o.output, "o", "table", "output format: table or json (Consul's wire format)")
	if err := fs.Parse(args); err != nil || !cli.CheckFormat(prog, o.output, stderr) {
		return cli.Usage
	}
	reps, err := build(o)
	if err != nil {
		return cli.Fail(prog, stderr, err)
	}
	return cli.Emit(prog, stdout, stderr, o.output, reps, func(w io.Writer) error { return print(w, reps) })
}

const prog = "peering"

// decodeAll reads a stream of JSON values — objects, or lists of objects — into values of T,
// prefixing every error with the file and the value's position.
func decodeAll[T any](data []byte, name string) ([]T, error) {
	var out []T
	var errs []error
	dec := json.NewDecoder(bytes.NewReader(data))
	for n := 0; ; n++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: value %d: not JSON: %w", name, n+1, err)
		}
		items := []json.RawMessage{raw}
		list := bytes.HasPrefix(bytes.TrimSpace(raw), []byte("["))
		if list {
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fmt.Errorf("%s: value %d: %w", name, n+1, err)
			}
		}
		for i, item := range items {
			var v T
			if err := json.Unmarshal(item, &v); err != nil {
				where := fmt.Sprintf("value %d", n+1)
				if list {
					where = fmt.Sprintf("value %d, [%d]", n+1, i)
				}
				errs = append(errs, strict.Prefix(fmt.Sprintf("%s: %s: ", name, where), err))
				continue
			}
			out = append(out, v)
		}
	}
	return out, errors.Join(errs...)
}

// catalogFile is the catalog input: services with their protocols, and the gateways.
type catalogFile struct {
	DefaultProtocol string
	Services        []catalogService
	Gateways        []peermeta.CheckServiceNode
}

type catalogService struct {
	exports.ServiceName
	Protocol string
}

// decodeCatalog reads the catalog strictly (it is this program's format), except the
// gateways, which are Consul's API output and carry many fields this program ignores.
func decodeCatalog(data []byte, name string) (catalogFile, error) {
	var c catalogFile
	x, err := strict.Parse(data)
	if err != nil {
		return c, fmt.Errorf("%s: not JSON: %w", name, err)
	}
	d := &strict.Decoder{}
	o, ok := d.Object(x, "")
	if !ok {
		return c, strict.Prefix(name+": ", cmp.Or(d.Err(), errors.New("(top level): must be an object")))
	}
	o.Check("DefaultProtocol", "Services", "Gateways")
	o.String(&c.DefaultProtocol, "DefaultProtocol")
	if v, p, ok := o.Get("Services"); ok {
		for i, item := range d.List(v, p) {
			so, ok := d.Object(item, strict.Index(p, i))
			if !ok {
				continue
			}
			so.Check("Name", "Namespace", "Partition", "Protocol")
			var s catalogService
			so.String(&s.Name, "Name")
			so.String(&s.Namespace, "Namespace")
			so.String(&s.Partition, "Partition")
			so.String(&s.Protocol, "Protocol")
			if s.Name == "" {
				d.Errorf(strict.Index(p, i), "Name: must not be empty")
			}
			c.Services = append(c.Services, s)
		}
	}
	if v, p, ok := o.Get("Gateways"); ok {
		b, _ := json.Marshal(v)
		if err := json.Unmarshal(b, &c.Gateways); err != nil {
			d.Errorf(p, "must be a list of /v1/health/service/mesh-gateway entries: %v", err)
		}
	}
	return c, strict.Prefix(name+": ", d.Err())
}

func build(o options) ([]peermeta.Replication, error) {
	data, name, err := cli.ReadFile(sample, o.exports, "exported-services.json")
	if err != nil {
		return nil, err
	}
	entries, err := decodeAll[exports.ConfigEntry](data, name)
	if err != nil {
		return nil, err
	}
	x, err := exports.Compile(entries...)
	if err != nil {
		return nil, strict.Prefix(name+": ", err)
	}
	data, rname, err := cli.ReadFile(sample, o.resolvers, "resolvers.json")
	if err != nil {
		return nil, err
	}
	resolvers, err := decodeAll[chain.ServiceResolver](data, rname)
	if err != nil {
		return nil, err
	}
	data, cname, err := cli.ReadFile(sample, o.catalog, "catalog.json")
	if err != nil {
		return nil, err
	}
	cat, err := decodeCatalog(data, cname)
	if err != nil {
		return nil, err
	}
	td := o.trustDomain
	if td == "" {
		td = spiffe.ConsulTrustDomain(o.clusterID)
	}
	in := peermeta.Input{
		Exports:  x,
		Entries:  chain.Entries{Resolvers: resolvers, Protocols: map[chain.ServiceKey]string{}, DefaultProtocol: cat.DefaultProtocol},
		Gateways: cat.Gateways,
	}
	for _, s := range cat.Services {
		in.Catalog = append(in.Catalog, s.ServiceName)
		if s.Protocol != "" {
			in.Entries.Protocols[chain.ServiceKey{Partition: s.Partition, Namespace: s.Namespace, Service: s.Name}] = s.Protocol
		}
	}
	peers := []string{o.peer}
	if o.peer == "" {
		peers = peersOf(x, o.partition)
	}
	var reps []peermeta.Replication
	for _, p := range peers {
		in.Exporter = peermeta.Exporter{Peer: p, Partition: o.partition, Datacenter: o.datacenter, TrustDomain: td}
		rep, err := peermeta.Replicate(in)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rname, err)
		}
		reps = append(reps, rep)
	}
	return reps, nil
}

// peersOf lists the peers the partition's exported-services entry names, sorted.
func peersOf(x *exports.Exports, partition string) []string {
	e, ok := x.Entry(partition)
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range e.Services {
		for _, c := range s.Consumers {
			if c.Peer != "" && !seen[c.Peer] {
				seen[c.Peer] = true
				out = append(out, c.Peer)
			}
		}
	}
	slices.Sort(out)
	return out
}

func print(w io.Writer, reps []peermeta.Replication) error {
	for i, rep := range reps {
		if i > 0 {
			fmt.Fprintln(w)
		}
		td := rep.Exporter.TrustDomain
		short := func(s string) string { return strings.ReplaceAll(s, td, "<td>") }
		fmt.Fprintf(w, "PEER %s: from partition %s, datacenter %s, trust domain <td> = %s\n", rep.Peer, orDefault(rep.Exporter.Partition), rep.Exporter.Datacenter, td)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SERVICE\tPROTOCOL\tSNI\tSPIFFE IDS\tFROM\tINSTANCES")
		for _, s := range rep.Services {
			for j := 0; j < max(len(s.Origins), len(s.Instances)); j++ {
				cols := make([]string, 6)
				if j == 0 {
					cols[0], cols[1], cols[2] = s.Service.String(), s.PeerMeta.Protocol, short(s.PeerMeta.PrimarySNI())
				}
				if j < len(s.Origins) {
					cols[3], cols[4] = short(s.Origins[j].SpiffeID), origin(s.Origins[j])
				}
				if j < len(s.Instances) {
					cols[5] = instance(s.Instances[j])
				}
				fmt.Fprintln(tw, strings.Join(cols, "\t"))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, f := range rep.Failed {
			fmt.Fprintf(w, "NOT REPLICATED %s: %v\n", f.Service, f.Err)
		}
		for _, e := range rep.Excluded {
			fmt.Fprintf(w, "EXCLUDED %s: %s\n", e.Service, e.Reason)
		}
	}
	return nil
}

func origin(o peermeta.Origin) string {
	if o.From != peermeta.FromTarget {
		return string(o.From)
	}
	via := ""
	if n := len(o.Via); n > 0 && o.Via[n-1].Resolver != "" {
		via = " (" + o.Via[n-1].Field + " of " + o.Via[n-1].Resolver + ")"
	}
	return "target " + strings.Join(o.Targets, ", ") + via
}

func instance(n peermeta.CheckServiceNode) string {
	status := "no checks"
	if len(n.Checks) > 0 {
		status = n.Checks[0].Status
	}
	return fmt.Sprintf("%s on %s %s:%d, %s", n.Service.ID, n.Node.Node, n.Service.Address, n.Service.Port, status)
}

func orDefault(s string) string {
	if s == "" {
		return "default"
	}
	return s
}
