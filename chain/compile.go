package chain

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
)

// indexed is a resolver with its position in Entries.Resolvers and its ID, built once, what
// in it makes a chain unsafe to export to a peer (peerUnsafe's answer), and what it names —
// the local services it redirects or fails over to and its sameness groups, in the order
// CheckPeerExport visits them — which both that check and a chain's read walk follow.
type indexed struct {
	*ServiceResolver
	pos        int
	id         string
	peerUnsafe string
	consults   []consult
}

// options are the fields of a Redirect, a failover section or a failover target.
type options struct{ service, subset, namespace, partition, datacenter, peer string }

func redirectOptions(rd *Redirect) options {
	return options{service: rd.Service, subset: rd.ServiceSubset, namespace: rd.Namespace, partition: rd.Partition, datacenter: rd.Datacenter, peer: rd.Peer}
}

func targetOptions(ft FailoverTarget) options {
	return options{service: ft.Service, subset: ft.ServiceSubset, namespace: ft.Namespace, partition: ft.Partition, datacenter: ft.Datacenter, peer: ft.Peer}
}

// Compiler holds validated, indexed Entries and compiles chains from them. It is built by
// NewCompiler, immutable and safe for concurrent use: compile many chains (one per exported
// service, say) without validating the entries each time. Everything it holds — the indexes,
// and the table CheckPeerExport's answers come from — is built by NewCompiler; nothing is
// built on first use. It keeps copies of the entries: changing them after NewCompiler
// changes nothing. The zero Compiler compiles as if it had no entries.
type Compiler struct {
	resolvers map[exports.ServiceName]*indexed  // by canonical service
	nodes     []indexed                         // the same, by position in Entries.Resolvers
	routers   map[exports.ServiceName]*router   // by canonical service, normalised
	splitters map[exports.ServiceName]*splitter // by canonical service, normalised
	unsafe    bool                              // some resolver is not peer-export safe
	sameness  bool                              // some resolver names a sameness group
	safety    map[string]*safety                // CheckPeerExport's answers, by requesting partition (see safetyOf)
	protocols map[exports.ServiceName]string    // by canonical service
	defProto  string
	groups    map[[2]string]*exports.SamenessGroup // by partition and name
	dff       map[string]*exports.SamenessGroup    // partition -> its DefaultForFailover group
}

// Compile expands the request's chain as Consul's server compiles it: the requested
// service's router, the splitters routes and splits lead to (nested ones flattened) and a
// resolver node for each target they reach, whose resolution follows redirects (any number
// of hops, with cycle detection), applies default subsets, checks that subsets exist and
// expands failover (to datacenters, targets, or the members of a sameness group); then it
// builds each local target's SNI, SPIFFE ID and proxy settings (a peer target's service,
// namespace, partition and peer must be DNS labels, as a local target's names must). Every
// local service the chain touches must have the chain's protocol, and a router or splitter
// needs an HTTP-like one. Problems are reported together: missing request fields, invalid
// or duplicate entries and sameness groups (each prefixed by the entry), and the chain's:
//
//	detected circular resolver redirect: [a.default.default.dc1 -> b.default.default.dc1 -> a.default.default.dc1]
//	detected circular reference: [splitter:a.default.default -> splitter:b.default.default -> splitter:a.default.default]
//	service "web" does not have a subset named "v3"
//	discovery chain "web" uses inconsistent protocols; service "api" has "tcp" which is not "http"
//	discovery chain "web" uses a protocol "tcp" that does not permit advanced routing or splitting behavior
//	sameness group missing for service "web"
//
// Compile's cost is linear in what it reads and writes: resolution and nested splitters are
// iterative (a redirect chain or a nesting of any length cannot exhaust the stack) and a
// redirect path shared by many failover candidates is walked once.
func Compile(req Request, e Entries) (*Chain, error) {
	reqErrs := checkRequest(req)
	cc, err := NewCompiler(e)
	if err != nil || len(reqErrs) > 0 {
		return nil, errors.Join(append(reqErrs, err)...)
	}
	return cc.compile(req)
}

// checkRequest reports the request's missing fields.
func checkRequest(req Request) []error {
	var errs []error
	for _, f := range []struct{ name, value string }{{"Service.Name", req.Service.Name}, {"Datacenter", req.Datacenter}, {"TrustDomain", req.TrustDomain}} {
		if f.value == "" {
			errs = append(errs, &FieldError{Field: "Request." + f.name, Detail: "is required", Err: errRequest})
		}
	}
	return errs
}

// Compile compiles the request's chain from the compiler's entries; see the function Compile.
func (cc *Compiler) Compile(req Request) (*Chain, error) {
	if errs := checkRequest(req); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if cc == nil {
		cc = &Compiler{}
	}
	return cc.compile(req)
}

// NewCompiler validates the entries and indexes copies of them (routers and splitters
// normalised, as Consul's server stores them): every invalid resolver, router or splitter
// (each problem prefixed by the entry), two entries of one kind for one service, one service
// given two protocols, and every problem of the sameness groups (see
// exports.ValidateSamenessGroups) are reported together.
func NewCompiler(e Entries) (*Compiler, error) {
	cc := &Compiler{resolvers: make(map[exports.ServiceName]*indexed, len(e.Resolvers)), protocols: make(map[exports.ServiceName]string, len(e.Protocols))}
	own := make([]ServiceResolver, len(e.Resolvers)) // the copies, in one allocation
	redirects := make([]Redirect, len(e.Resolvers))
	all := make([]indexed, len(e.Resolvers))
	var c fielderr.Collector
	eachValid(e.Resolvers, "Resolvers", "resolver", &c, func(i int, r *ServiceResolver, k exports.ServiceName) {
		own[i] = r.clone(&redirects[i])
		all[i] = indexed{ServiceResolver: &own[i], pos: i, id: k.String(), peerUnsafe: peerUnsafe(&own[i])}
		cc.resolvers[k] = &all[i]
		cc.unsafe = cc.unsafe || all[i].peerUnsafe != ""
	})
	cc.linkConsulted(all)
	cc.nodes = all
	cc.indexRouting(e, &c)
	keys := slices.SortedFunc(maps.Keys(e.Protocols), func(a, b exports.ServiceName) int {
		return cmp.Or(strings.Compare(a.Partition, b.Partition), strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	for _, k := range keys {
		p := strings.ToLower(e.Protocols[k])
		if p == "" {
			p = "tcp"
		}
		ck := k.Canonical()
		if prev, dup := cc.protocols[ck]; dup && prev != p {
			c.Put(&FieldError{Field: "Protocols", Value: p, Detail: fmt.Sprintf("%s is given twice, as %q and %q", ck, prev, p), Err: errDuplicate})
			continue
		}
		cc.protocols[ck] = p
	}
	cc.defProto = strings.ToLower(e.DefaultProtocol)
	c.Put(exports.ValidateSamenessGroups(e.SamenessGroups))
	cc.groups = make(map[[2]string]*exports.SamenessGroup, len(e.SamenessGroups))
	cc.dff = map[string]*exports.SamenessGroup{}
	for _, g := range e.SamenessGroups {
		g.Members = slices.Clone(g.Members)
		g.Meta = maps.Clone(g.Meta)
		p := orDefault(g.Partition)
		cc.groups[[2]string{p, g.Name}] = &g
		if g.DefaultForFailover {
			cc.dff[p] = &g
		}
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	cc.buildSafetyTables(e.SamenessGroups)
	return cc, nil
}
