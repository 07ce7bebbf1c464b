// Command peering shows what a Consul cluster replicates to each of its peers: every
// exported service with the SNI the peer dials, the SPIFFE IDs it accepts and the protocol;
// the services replicated without a chain; and, as findings with a level and a code, those
// not replicated and why in Consul's words, where meshscope's one-rule reading differs from
// Consul's union, what its intentions get wrong, the entries it did not read, and — given
// proposed entries — the writes Consul would refuse and the calls the change allows or
// denies. It answers "may CALLER call SERVICE" for local and peered callers (-may). The
// packages do the work (store — package chain/store — reads the config entries and says
// what each sidecar has; peermeta replicates, diffs and answers calls; exports, chain,
// intentions); this program reads Consul's output and prints.
//
// With no input flags it runs on the embedded sample; the usage text (-h) gives the Consul
// commands whose output it reads.
package main

import (
	"cmp"
	"embed"
	"errors"
	"flag"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/intentions"
	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/peermeta"
)

//go:embed sample/*.json
var sample embed.FS

const prog = "peering"

var description = `peering: what a Consul cluster replicates to each of its peers.

It reads what Consul prints. On your own cluster (CONSUL_HTTP_ADDR set):

  for k in exported-services service-router service-splitter service-resolver service-defaults sameness-group \
      service-intentions; do
    consul config list -kind $k | xargs -I{} consul config read -kind $k -name {}
  done > config.json
  consul config read -kind proxy-defaults -name global >> config.json
  consul config read -kind mesh -name mesh >> config.json
  curl -s $CONSUL_HTTP_ADDR/v1/internal/ui/services > catalog.json
  curl -s $CONSUL_HTTP_ADDR/v1/health/service/mesh-gateway > gateways.json
  for s in $(jq -r '.[].Name' catalog.json); do curl -s $CONSUL_HTTP_ADDR/v1/health/connect/$s; done > connect.json
  curl -s $CONSUL_HTTP_ADDR/v1/connect/ca/roots > ca-roots.json
  curl -s $CONSUL_HTTP_ADDR/v1/peerings > peerings.json
  peering -config config.json -catalog catalog.json -health gateways.json -health connect.json \
      -ca-roots ca-roots.json -peerings peerings.json -datacenter dc1 [-peer east] [-o json|dot] [-fail-on warning]

-config reads entries of every kind, mixed (a file or a directory of .json files); kinds replication
does not depend on are skipped and named. A service is replicated with a chain when it has a router,
splitter or resolver, a sidecar proxy or a connect-native instance (as /v1/internal/ui/services,
/v1/catalog/service/<name> and -health /v1/health/connect/<name> output say) or sits behind a
terminating gateway (-gateway-services). -catalog also takes /v1/catalog/services output, which does
not say which services are gateways or proxies: -health output then says it, and a service whose kind
nothing says is reported, never replicated by "*". With no input flag it runs on an embedded sample;
with any, it needs -config, -ca-roots or -trust-domain, -datacenter, and -catalog when a "*" rule
(current or proposed) exports services.

-may 'CALLER SERVICE' (CALLER web, or east/web: the peer east's web) says whether the call arrives (a
peer's caller reaches what the chains exported to its peer target), whether the sidecar trusts the
peer, how the caller is seen, and Envoy's decision on -request (default GET /; -header adds headers)
under -default-policy allow|deny, explained. The intentions are linted (a peer's intention that never
matches, a missing trust bundle, permissions on a tcp sidecar — a registration's protocol from -health
beats service-defaults —, a peer without peering, a regex Envoy refuses, a shadowed source). -peerings
is needed when an intention names a peer; -peer-trust-domain east=<td> for a peering it gives none.

A dry run (-new-config proposed.json, each entry replacing the current one of its kind and name)
writes each changed entry as Consul's server takes a write — defaults, sameness groups, resolvers
(each after those it names), splitters, routers, exports, intentions — and prints every write it
refuses, with each chain it breaks in Consul's words, per peer how the replication changes, and the
calls (of the callers the intentions name) the change allows or denies.

Each exported chain's graph is printed; -o dot prints them in Graphviz's language (| dot -Tsvg).
-explain-request 'GET /api?id=7' -service web [-header 'x-env: canary' ...] follows one request
through web's chain as Envoy matches Consul's routes: the routes tried, the one taken, the splits and
the targets. Each finding is a line: its level (ERROR, WARNING, NOTE), its code, what it is about and
why. -o json prints the report, findings and chains (as /v1/discovery-chain gives them), as JSON.
` + cli.ExitStatus(true, "-peer or -partition that the exported-services entries do not name",
	"-explain or -service not [partition/namespace/]name of a service of the catalog or the chain entries",
	"-datacenter or -partition that no mesh gateway instance of -health is in")

// files is a repeatable flag naming files; an empty value is refused.
type files []string

func (f *files) String() string { return strings.Join(*f, ",") }

func (f *files) Set(v string) error {
	if v == "" {
		return errors.New("an empty value (an unset variable?): name a file")
	}
	*f = append(*f, v)
	return nil
}

type options struct {
	config, newConfig                      files
	peerings, may, request, defaultPolicy  string
	peerTrustDomains                       files // "name=trust domain"
	health, gatewayServices, catalog       files
	caRoots, trustDomain                   string
	datacenter, partition, namespace, peer string
	explain, output, failOn                string
	explainRequest, service                string
	headers                                files // "Name: value"
	chainRequest                           chain.HTTPRequest
	callRequest                            intentions.Request
	wide, sample                           bool // sample: no input flag is given, so run on the embedded sample
}

// inputFlags are the flags that name input; the sample runs only when none is given.
var inputFlags = []string{"config", "new-config", "health", "gateway-services", "catalog", "ca-roots", "trust-domain", "datacenter", "peerings"}

// inputNames says what the string input flags name, for the message refusing one given
// empty: -datacenter and -trust-domain take names, not files. The flags of type files
// refuse an empty value themselves.
var inputNames = map[string]string{
	"datacenter":   "the local datacenter, the exporting cluster's (the Config.Datacenter of /v1/agent/self)",
	"trust-domain": "the cluster's trust domain (the TrustDomain of /v1/connect/ca/roots)",
	"ca-roots":     "a file of /v1/connect/ca/roots output",
	"peerings":     "a file of /v1/peerings output",
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.Var(&o.config, "config", "consul config read output of any kinds, mixed (a file or a directory of .json files; repeatable)")
	fs.Var(&o.newConfig, "new-config", "dry run: proposed entries of any kind, replacing those of the same kind and name (repeatable)")
	fs.Var(&o.health, "health", "/v1/health/service/<name> or /v1/health/connect/<name> output: gateways, connect instances, service kinds (repeatable)")
	fs.Var(&o.gatewayServices, "gateway-services", "/v1/catalog/gateway-services/<terminating gateway> output (repeatable)")
	fs.Var(&o.catalog, "catalog", "/v1/internal/ui/services, /v1/catalog/service/<name> or /v1/catalog/services output (repeatable)")
	fs.StringVar(&o.caRoots, "ca-roots", "", "/v1/connect/ca/roots output: the trust domain")
	fs.StringVar(&o.trustDomain, "trust-domain", "", "the trust domain, instead of -ca-roots")
	fs.StringVar(&o.datacenter, "datacenter", "", "the exporting datacenter")
	fs.StringVar(&o.partition, "partition", "default", "the partition the peerings belong to")
	fs.StringVar(&o.namespace, "namespace", "default", "the namespace of -catalog services whose output does not say it")
	fs.StringVar(&o.peer, "peer", "", "show this peer only (the exporter's name for the peering)")
	fs.StringVar(&o.explain, "explain", "", "explain one service [partition/namespace/]name: its rule, its chain, its identities")
	fs.StringVar(&o.explainRequest, "explain-request", "", "follow a request through -service's chain: 'METHOD /path?query'")
	fs.StringVar(&o.service, "service", "", "the service [partition/namespace/]name whose chain -explain-request follows")
	fs.Var(&o.headers, "header", "a header of -explain-request's or -request's request, 'Name: value' (repeatable)")
	fs.StringVar(&o.output, "o", "table", "output format: table, json (Consul's wire format) or dot (the chains' graphs, for Graphviz)")
	fs.StringVar(&o.failOn, "fail-on", "", "exit with status 3 when a finding is at or above this level: note, warning or error")
	fs.BoolVar(&o.wide, "wide", false, "every SPIFFE ID and instance in the table")
	fs.StringVar(&o.peerings, "peerings", "", "/v1/peerings output: the cluster's peerings, for who may call whom")
	fs.Var(&o.peerTrustDomains, "peer-trust-domain", "NAME=TRUST-DOMAIN of a peering -peerings names none for (repeatable)")
	fs.StringVar(&o.may, "may", "", "may CALLER call SERVICE: 'web api', 'east/web api' (a service of the peer east)")
	fs.StringVar(&o.request, "request", "", "the request of -may and of the dry run's calls: 'METHOD /path' (default GET /)")
	fs.StringVar(&o.defaultPolicy, "default-policy", "", "acl.default_policy, allow or deny (ACLs enabled); none: ACLs disabled, allow")
	if done, code := cli.Parse(fs, args, description, stdout, stderr); done {
		return code
	}
	if !cli.CheckFormat(prog, o.output, stderr, "dot") || !cli.CheckFailOn(prog, o.failOn, stderr) {
		return cli.Usage
	}
	if err := o.readRequest(); err != nil {
		cli.Fail(prog, stderr, err)
		return cli.Usage
	}
	given, ok := cli.Given(prog, fs, stderr, inputNames, inputFlags...)
	if !ok {
		return cli.Usage
	}
	o.sample = !slices.ContainsFunc(inputFlags, func(f string) bool { return given[f] })
	if !o.sample && !cli.Missing(prog, given, stderr, "-config", "-ca-roots|-trust-domain", "-datacenter") {
		return cli.Usage
	}
	rep, err := build(o)
	var usage usageError
	switch {
	case errors.As(err, &usage):
		cli.Fail(prog, stderr, err)
		return cli.Usage
	case err != nil:
		return cli.Fail(prog, stderr, err)
	}
	text := func(w io.Writer) error { return rep.print(w, o.wide) }
	if o.output == "dot" {
		text = rep.dot
	}
	code := cli.Emit(prog, stdout, stderr, o.output, rep, text)
	return cli.Gate(prog, stderr, code, o.failOn, rep.gated())
}

// readRequest reads -explain-request, -service, -request and -header (which goes with either
// request).
func (o *options) readRequest() error {
	if (o.explainRequest == "") != (o.service == "") || o.explainRequest == "" && o.request == "" && len(o.headers) > 0 {
		return errors.New("-explain-request and -service come together (-header with them or with -request)")
	}
	if o.explainRequest != "" {
		r, err := parseRequest("-explain-request", o.explainRequest, o.headers)
		o.chainRequest = r
		if err != nil {
			return err
		}
	}
	r, err := parseRequest("-request", cmp.Or(o.request, "GET /"), o.headers)
	o.callRequest = peermeta.IntentionsRequest(r)
	return err
}

// parseRequest reads a request line given as flag and its headers, naming the flag at fault.
func parseRequest(flag, line string, headers []string) (chain.HTTPRequest, error) {
	r, err := chain.ParseHTTPRequest(line, headers...)
	var fe *chain.FieldError
	if !errors.As(err, &fe) {
		return r, err
	}
	if strings.HasPrefix(fe.Field, "headers[") {
		flag = "-header"
	}
	return r, fielderr.In(flag, &chain.FieldError{Value: fe.Value, Detail: fe.Detail, Err: fe.Err})
}

// usageError is an input the flags should have named and did not: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }
