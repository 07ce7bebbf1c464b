package peermeta

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/intentions"
	"github.com/meshscope/meshscope/internal/report"
)

// Input is everything a cluster knows when it decides what to replicate to a peer.
type Input struct {
	// Exporter is the cluster as the peering sees it; Exporter.Peer names the peer.
	Exporter Exporter
	// Exports decides which services the peer receives (exports.CompileGroups when the
	// exported-services entries name sameness groups).
	Exports *exports.Exports
	// Catalog is the cluster's services; only those of the exporter's partition can be
	// exported on its peering.
	Catalog []exports.ServiceName
	// Kinds gives the service kind of each catalog service that is not a typical one, in
	// Consul's words: KindConnectProxy, KindMeshGateway, KindTerminatingGateway,
	// KindIngressGateway or KindAPIGateway. A catalog service absent from Kinds is typical
	// (Consul's kind ""). A "*" rule exports only typical services and the names of resolver
	// entries, as Consul does; an exact rule exports the service it names whatever its kind.
	Kinds map[exports.ServiceName]ServiceKind
	// Unclassified are catalog services whose kind is not known (/v1/catalog/services does
	// not say it). A "*" rule does not export them, and each one a "*" rule naming the peer
	// matches is reported (UnknownKind); an exact rule exports the service it names.
	Unclassified []exports.ServiceName
	// KindsFrom says, in each UnknownKind finding, where its user gives a service's kind:
	// a program names its own flags here ("-catalog output of /v1/internal/ui/services").
	// "" names the Consul outputs that say kinds: the catalog's /v1/internal/ui/services or
	// /v1/catalog/service/<name>, or the health output of the service's instances.
	KindsFrom string
	// Entries are the service-resolver, service-router and service-splitter entries, the
	// services' protocols and the sameness
	// groups.
	Entries chain.Entries
	// Gateways are the local mesh gateway instances (as /v1/health/service/mesh-gateway
	// returns them); every exported connect service gets a synthetic instance at each.
	Gateways []CheckServiceNode
	// Intentions are the service-intentions entries, which replication does not read but
	// Diff's writes are judged with: Consul's server refuses a write that leaves a destination
	// of permissions without an HTTP-like chain.
	Intentions []intentions.ConfigEntry
	// Connect lists the services that have a connect-enabled instance (a sidecar proxy for
	// them, or a connect-native instance) or sit behind a terminating gateway. With the
	// services that have a service-resolver, service-router or service-splitter entry, they
	// are the connect services: the only
	// ones replicated with a discovery chain.
	Connect []exports.ServiceName
}

// defaultKindsFrom is what an UnknownKind finding tells its reader to give a service's kind
// with when Input.KindsFrom is "": the Consul outputs that say it.
const defaultKindsFrom = "catalog output that says kinds (/v1/internal/ui/services or /v1/catalog/service/<name>; " +
	"/v1/catalog/services does not), or the /v1/health/service/<name> output of its instances"

// Replication is everything one peer receives, and what it does not and why. The caller
// owns it: nothing in it is shared with the Input or with any other call's result.
type Replication struct {
	Peer     string     `json:"Peer"`
	Exporter Exporter   `json:"Exporter"`
	Services []Exported `json:"Services"`
	// Plain are the exported services that are not connect services: Consul replicates them
	// as services without PeerMeta (the importer gets their plain instances). Sorted.
	Plain []exports.ServiceName `json:"Plain,omitempty"`
	// Failed are the exported connect services whose chain does not compile or is not safe
	// to export to a peer; Excluded those deliberately not replicated because their chain
	// reaches the reserved consul service (Err says which target is consul's).
	Failed   []Failure `json:"Failed,omitempty"`
	Excluded []Failure `json:"Excluded,omitempty"`
	// Findings are what else a reader of the replication should know, sorted by path: a
	// service Consul's union of rules replicates and meshscope's one rule does not
	// (UnionDiffers), a service of unknown kind a "*" rule leaves out (UnknownKind), and the
	// findings of the chains compiled (a peer target a local resolver changes:
	// chain.PeerTargetResolvedLocally). The failed and excluded services are in Failed and
	// Excluded, not here; AllFindings gives them as findings too.
	Findings []Finding `json:"Findings,omitempty"`
}

// AllFindings returns everything a program prints and gates on for the replication, sorted
// by path: Findings, and a finding for each service in Failed (NotReplicated) and Excluded
// (Excluded), its message the failure's error. The findings are the caller's.
func (r *Replication) AllFindings() []Finding {
	out := slices.Clone(r.Findings)
	for _, f := range r.Failed {
		out = append(out, report.New(replicationPath(f.Service, r.Peer), NotReplicated, "%v", f.Err))
	}
	for _, f := range r.Excluded {
		out = append(out, report.New(replicationPath(f.Service, r.Peer), Excluded, "%v", f.Err))
	}
	slices.SortStableFunc(out, report.Compare)
	return out
}

// Exported is one replicated service: its PeerMeta, where each SPIFFE ID comes from, and its
// synthetic instances.
type Exported struct {
	Service exports.ServiceName `json:"Service"`
	// Rule is the index of the exported-services rule that exports it.
	Rule     int      `json:"Rule"`
	PeerMeta PeerMeta `json:"PeerMeta"`
	Origins  []Origin `json:"Origins"`
	// Instances are the instances the peer sees: one connect-proxy per mesh gateway instance
	// (the gateways ordered by node and service ID; the i-th gives instance i), service
	// "<service>-sidecar-proxy", ID "<service>-sidecar-proxy-instance-<i>" (or
	// "<service>-sidecar-proxy" when the gateway instance has no ID), proxying for
	// "<service>" ("<service>-instance-<i>", or "<service>"), at the gateway's node, address,
	// tagged addresses and port, carrying the PeerMeta, with the gateway's checks folded into
	// one "<ID>:overall-check": maintenance if any is a node or service maintenance check,
	// else the worst of critical, warning and passing (an unknown status counts as critical,
	// where Consul lets it win over everything); its output says which check decided.
	Instances []CheckServiceNode `json:"Instances"`
	// Start is the ID of the chain's start target.
	Start string `json:"Start"`
	// Chain is the service's compiled chain (in the exporter's datacenter and trust domain),
	// for a caller that explains or draws it; not in JSON: a peer receives the PeerMeta.
	Chain *chain.Chain `json:"-"`
}

// Replicate decides what the peer Exporter.Peer receives: the services of the exporter's
// partition whose one exported-services rule names the peer (under a "*" rule, the
// namespace's typical catalog services and the names of its service-resolver, service-router
// and service-splitter entries; under
// an exact rule the service it names, in the catalog or not, whatever its kind), sorted by
// partition, namespace and name.
//
// Connect services — those with a service-resolver, service-router or service-splitter
// entry, or listed in Input.Connect — are
// replicated with a discovery chain: each with its PeerMeta (see Build), the origin of each
// SPIFFE ID, and one synthetic instance per mesh gateway instance (see Exported). The
// others are listed in Plain. A connect service is not replicated, and is listed with the
// reason, when, in this order: its chain does not compile (Failed, the compile error); its
// chain is not safe to export to a peer (Failed, chain.Chain.CheckPeerExport's error, in
// Consul's words); its chain reaches the reserved consul service (Excluded). Invalid input —
// the exporter, an unknown kind, or the entries, which every chain shares — is an error.
func Replicate(in Input) (Replication, error) {
	if err := in.validate(); err != nil {
		return Replication{}, err
	}
	cc, err := chain.NewCompiler(in.Entries)
	if err != nil {
		return Replication{}, err
	}
	x := in.Exporter
	rep := Replication{Peer: x.Peer, Exporter: x, Services: []Exported{}}
	gateways := slices.Clone(in.Gateways)
	slices.SortStableFunc(gateways, func(a, b CheckServiceNode) int {
		return cmp.Or(strings.Compare(nodeName(a), nodeName(b)), strings.Compare(serviceID(a), serviceID(b)))
	})
	connect := connectServices(in)
	for _, e := range in.exported(&rep) {
		s := e.service
		if !connect[s] {
			rep.Plain = append(rep.Plain, s)
			continue
		}
		c, err := cc.Compile(chain.Request{Service: s, Datacenter: x.Datacenter, TrustDomain: x.TrustDomain})
		if err == nil {
			rep.Findings = append(rep.Findings, c.Findings()...)
			err = c.CheckPeerExport()
		}
		if err != nil {
			rep.Failed = append(rep.Failed, Failure{Service: s, Err: err})
			continue
		}
		if err := reachesConsul(c); err != nil {
			rep.Excluded = append(rep.Excluded, Failure{Service: s, Err: err})
			continue
		}
		m, origins := build(x, c)
		rep.Services = append(rep.Services, Exported{Service: s, Rule: e.rule, PeerMeta: m, Origins: origins,
			Instances: synthesize(s, m, gateways), Start: c.Start, Chain: c})
	}
	slices.SortStableFunc(rep.Findings, report.Compare)
	return rep, nil
}

// validate reports every problem with the exporter and the kinds.
func (in Input) validate() error {
	errs := []error{in.Exporter.Validate()}
	for _, s := range slices.SortedFunc(maps.Keys(in.Kinds), exports.ServiceName.Compare) {
		if k := in.Kinds[s]; !k.valid() {
			errs = append(errs, &FieldError{Field: fmt.Sprintf("Kinds[%s]", s), Value: k, Detail: kindProblem(k)})
		}
	}
	return errors.Join(errs...)
}

// export is a service the peer receives and the index of the rule that exports it.
type export struct {
	service exports.ServiceName
	rule    int
}

// exported returns the services of the exporter's partition the peer receives, sorted by
// service, matching each candidate once, and records in rep the findings about the ones it
// does not receive: those Consul's union of rules would replicate (UnionDiffers), and those
// of unknown kind a "*" rule leaves out (UnknownKind).
func (in Input) exported(rep *Replication) []export {
	peer := in.Exporter.Peer
	var out []export
	for _, c := range in.candidates() {
		if m, ok := in.Exports.MatchPeer(c.service, peer); ok {
			switch {
			case m.Precedence == exports.Exact || c.wildcard:
				out = append(out, export{c.service, m.Rule})
			case c.unknown:
				rep.Findings = append(rep.Findings, report.New(replicationPath(c.service, peer), UnknownKind,
					"its service kind is unknown; Services[%d] (%s) exports only typical services, so it is not replicated: give its kind with %s",
					m.Rule, m.Precedence, cmp.Or(in.KindsFrom, defaultKindsFrom)))
			}
			continue
		}
		if u, ok := in.Exports.UnionMatch(c.service, peer); ok && c.wildcard {
			m, _ := in.Exports.Match(c.service)
			rep.Findings = append(rep.Findings, report.New(replicationPath(c.service, peer), UnionDiffers,
				"Consul would also replicate %s to %s via Services[%d]; meshscope applies only the most exact rule (Services[%d])", c.service.Name, peer, u.Rule, m.Rule))
		}
	}
	return out
}

// Lookup reads a service named as people name it — name, or partition/namespace/name; a bare
// name is in the exporter's partition and the default namespace — and returns it, canonical,
// when the exporter's partition could export it to a peer: when it is one of its catalog
// services (of any kind, classified or not), or names one of its resolver, router or
// splitter entries or one of its exact rules. Otherwise the error lists those services.
func (in Input) Lookup(name string) (exports.ServiceName, error) {
	parts := strings.Split(name, "/")
	s := exports.ServiceName{Partition: in.Exporter.partition(), Name: parts[0]}
	switch len(parts) {
	case 1:
	case 3:
		s = exports.ServiceName{Partition: parts[0], Namespace: parts[1], Name: parts[2]}
	default:
		return exports.ServiceName{}, &FieldError{Value: name, Detail: fmt.Sprintf("%q: want name or partition/namespace/name", name)}
	}
	s = s.Canonical()
	known := in.candidates()
	if slices.ContainsFunc(known, func(c candidate) bool { return c.service == s }) {
		return s, nil
	}
	names := make([]string, len(known))
	for i, k := range known {
		names[i] = k.service.String()
	}
	return exports.ServiceName{}, &FieldError{Value: name, Detail: fmt.Sprintf("%q: no such service in the catalog or the chain entries of partition %s; services: %s",
		name, in.Exporter.partition(), strings.Join(names, ", "))}
}

// candidate is a name the exporter's partition could export, and whether a "*" rule exports
// it (a typical catalog service or a resolver's name) or its kind is unknown.
type candidate struct {
	service           exports.ServiceName
	wildcard, unknown bool
}

// candidates returns the names the exporter's partition could export — its catalog services,
// the names of its resolver, router and splitter entries and of its exact rules — canonical,
// sorted, once each.
func (in Input) candidates() []candidate {
	part := in.Exporter.partition()
	var out []candidate
	add := func(s exports.ServiceName, wildcard, unknown bool) {
		if s = s.Canonical(); s.Partition == part {
			out = append(out, candidate{s, wildcard, unknown})
		}
	}
	unknown := make(map[exports.ServiceName]bool, len(in.Unclassified))
	for _, s := range in.Unclassified {
		unknown[s.Canonical()] = true
		add(s, false, true)
	}
	kinds := make(map[exports.ServiceName]ServiceKind, len(in.Kinds))
	for s, k := range in.Kinds {
		kinds[s.Canonical()] = k
	}
	for _, s := range in.Catalog {
		if s = s.Canonical(); !unknown[s] {
			add(s, kinds[s] == KindTypical, false)
		}
	}
	for _, s := range chainNames(in.Entries) {
		add(s, true, false)
	}
	if e, ok := in.Exports.Entry(part); ok {
		for _, r := range e.Services {
			if r.Name != exports.Wildcard && r.Namespace != exports.Wildcard {
				add(exports.ServiceName{Partition: part, Namespace: r.Namespace, Name: r.Name}, false, false)
			}
		}
	}
	// Sorted by service; of one service's entries, the first says a "*" rule exports it if
	// any does, and its kind is unknown only if no source says otherwise.
	slices.SortStableFunc(out, func(a, b candidate) int { return a.service.Compare(b.service) })
	merged := out[:0]
	for _, c := range out {
		if n := len(merged); n > 0 && merged[n-1].service == c.service {
			merged[n-1].wildcard = merged[n-1].wildcard || c.wildcard
			merged[n-1].unknown = merged[n-1].unknown && !c.wildcard
			continue
		}
		merged = append(merged, c)
	}
	return merged
}

// connectServices returns the set of connect services: those with a resolver, router or
// splitter entry and those in Input.Connect, canonical.
func connectServices(in Input) map[exports.ServiceName]bool {
	names := chainNames(in.Entries)
	set := make(map[exports.ServiceName]bool, len(names)+len(in.Connect))
	for _, s := range names {
		set[s] = true
	}
	for _, s := range in.Connect {
		set[s.Canonical()] = true
	}
	return set
}

// chainNames returns Consul's discovery chain names of e: the services of its resolver,
// router and splitter entries, canonical, in that order (a name may repeat).
func chainNames(e chain.Entries) []exports.ServiceName {
	out := make([]exports.ServiceName, 0, len(e.Resolvers)+len(e.Routers)+len(e.Splitters))
	for i := range e.Resolvers {
		out = append(out, e.Resolvers[i].ServiceName())
	}
	for i := range e.Routers {
		out = append(out, e.Routers[i].ServiceName())
	}
	for i := range e.Splitters {
		out = append(out, e.Splitters[i].ServiceName())
	}
	return out
}

// reachesConsul says which target of the chain is the reserved consul service, if any.
func reachesConsul(c *chain.Chain) error {
	for _, id := range c.TargetIDs() {
		if t := c.Targets[id]; t.Peer == "" && t.Service.Name == exports.ReservedService {
			return &FieldError{Value: id, Detail: fmt.Sprintf("its chain reaches the reserved %s service (target %s); it is never exported", exports.ReservedService, id), Err: errReservedService}
		}
	}
	return nil
}

func nodeName(c CheckServiceNode) string {
	if c.Node == nil {
		return ""
	}
	return c.Node.Node
}

func serviceID(c CheckServiceNode) string {
	if c.Service == nil {
		return ""
	}
	return c.Service.ID
}
