package store

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/intentions"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
	"github.com/meshscope/meshscope/spiffe"
)

// Cluster is what a destination's sidecar reads beside the config entries: the local
// cluster's names, its peerings, and the protocol each service's sidecar registration gives
// itself. Consul's servers hold the peerings (/v1/peerings) and the peers' trust bundles;
// the agents hold the registrations.
type Cluster struct {
	// TrustDomain and Datacenter are the local cluster's (the TrustDomain of
	// /v1/connect/ca/roots; the agent's datacenter).
	TrustDomain, Datacenter string
	// Peerings are the cluster's peerings, each once.
	Peerings []Peering
	// Protocols gives, for a service whose sidecar registration sets one, the "protocol" of
	// the registration's own proxy configuration (Proxy.Config.protocol), which wins over
	// service-defaults and proxy-defaults. A service absent, or "", sets none.
	Protocols map[string]string
}

// Peering is one cluster peering as the local cluster holds it.
type Peering struct {
	// Name is the local name of the peering: the peer's name in exported-services and
	// service-intentions entries.
	Name string
	// State is Consul's state of the peering: PENDING, ESTABLISHING, ACTIVE, FAILING,
	// DELETING or TERMINATED ("" is ACTIVE). Consul counts every peering active but a
	// terminated one and one being deleted: only those give trust bundles to sidecars.
	State string
	// Peer is what the peer's trust bundle and the peering say of it: its trust domain, the
	// partition it exports from and its datacenter. A zero TrustDomain says no trust bundle
	// was received (a peering not yet established): no sidecar has it, and the peer's
	// services cannot be named as callers.
	Peer intentions.Peer
}

// The states of a peering, as Consul names them.
var peeringStates = []string{"", "PENDING", "ESTABLISHING", "ACTIVE", "FAILING", "DELETING", "TERMINATED"}

// Active reports whether Consul counts the peering active: it is neither terminated nor
// being deleted.
func (p Peering) Active() bool { return p.State != "TERMINATED" && p.State != "DELETING" }

// bundled reports whether a sidecar may have the peer's trust bundle: the peering is active
// and its bundle was received.
func (p Peering) bundled() bool { return p.Active() && p.Peer.TrustDomain != "" }

// Validate reports every problem of the cluster's description, each naming its path: the
// local trust domain and datacenter, each peering's name (given once, without '*'), state and
// identity, and each registration's protocol (one Consul has: tcp, http, http2 or grpc).
func (cl *Cluster) Validate() error {
	errs := fielderr.Split(spiffe.MeshGateway{TrustDomain: cl.TrustDomain, Datacenter: cl.Datacenter}.Validate())
	for i, p := range cl.Peerings {
		at := strict.Index("Peerings", i)
		switch {
		case p.Name == "" || strings.Contains(p.Name, exports.Wildcard):
			errs = append(errs, fielderr.Newf("", at+".Name", p.Name, "a peering needs a name without '*'"))
		case slices.IndexFunc(cl.Peerings, func(q Peering) bool { return q.Name == p.Name }) < i:
			errs = append(errs, fielderr.Newf("", at+".Name", p.Name, "peering %q is given twice", p.Name))
		}
		if !slices.Contains(peeringStates, p.State) {
			errs = append(errs, fielderr.Newf("", at+".State", p.State, "%q is not a state of a Consul peering: want one of %s", p.State, strings.Join(peeringStates[1:], ", ")))
		}
		if p.Peer.TrustDomain != "" {
			g := spiffe.MeshGateway{TrustDomain: p.Peer.TrustDomain, Partition: p.Peer.Partition, Datacenter: p.Peer.Datacenter}
			errs = append(errs, fielderr.Split(fielderr.Under(at+".Peer", g.Validate()))...)
		}
	}
	for _, s := range slices.Sorted(maps.Keys(cl.Protocols)) {
		if p := strings.ToLower(cl.Protocols[s]); !slices.Contains([]string{"", "tcp", "http", "http2", "grpc"}, p) {
			errs = append(errs, fielderr.Newf("", strict.Key("Protocols", s), cl.Protocols[s], "%q is not a protocol Consul has: want tcp, http, http2 or grpc", cl.Protocols[s]))
		}
	}
	return errors.Join(errs...)
}

// Sidecars is what each destination service's sidecar has to build the RBAC rules of its
// public listener — intentions.Sidecar, the input of intentions.Compile —, computed from a
// Config and a Cluster as Consul's servers and agents compute it, and each destination
// compiled once (intentions.Destination), on first use. It is immutable and safe for
// concurrent use; Decide on a destination already compiled allocates nothing.
type Sidecars struct {
	st      *Store // read only: never written after New
	cluster Cluster
	peers   map[string]intentions.Peer // the peerings whose trust bundle was received
	mesh    Mesh
	entries []intentions.ConfigEntry // the service-intentions entries (read only)

	mu   sync.RWMutex
	dest map[string]*compiled
}

// compiled is one destination's sidecar, computed and compiled once.
type compiled struct {
	once sync.Once
	side intentions.Sidecar
	dest *intentions.Destination
	err  error
}

// Sidecars returns what the sidecars of c's services have in the cluster cl (see Sidecars).
// The error reports every problem of cl (Cluster.Validate) or an entry c holds twice.
func (c Config) Sidecars(cl Cluster) (*Sidecars, error) {
	if err := cl.Validate(); err != nil {
		return nil, err
	}
	st, err := New(c)
	if err != nil {
		return nil, err
	}
	s := &Sidecars{st: st, cluster: cl, peers: map[string]intentions.Peer{}, dest: map[string]*compiled{}, entries: c.Intentions}
	s.cluster.Peerings = slices.Clone(cl.Peerings)
	s.cluster.Protocols = maps.Clone(cl.Protocols)
	for _, p := range cl.Peerings {
		if p.Peer.TrustDomain != "" {
			s.peers[p.Name] = p.Peer
		}
	}
	if c.Mesh != nil {
		s.mesh = *c.Mesh
	}
	return s, nil
}

// Cluster returns the cluster the sidecars are in; its slices and map are read-only.
func (s *Sidecars) Cluster() Cluster { return s.cluster }

// Intentions returns the service-intentions entries the sidecars read, as the Config held
// them (read-only).
func (s *Sidecars) Intentions() []intentions.ConfigEntry { return s.entries }

// Peering returns the cluster's peering named name, and whether there is one.
func (s *Sidecars) Peering(name string) (Peering, bool) {
	i := slices.IndexFunc(s.cluster.Peerings, func(p Peering) bool { return p.Name == name })
	if i < 0 {
		return Peering{}, false
	}
	return s.cluster.Peerings[i], true
}

// Sidecar returns what the sidecar of service (a service of the default namespace and
// partition, where Consul CE keeps intentions) has:
//
//   - Intentions: those of the entries named service and "*" (intentions.ForDestination);
//   - Protocol: the registration's own (Cluster.Protocols), else service-defaults', else
//     proxy-defaults', else "" (tcp), lower-cased;
//   - ChainProtocol: the protocol of the service's discovery chain;
//   - TrustBundles: the peers whose trust bundle Consul gives the sidecar — over every service
//     whose chain targets this one (the service itself only while its own chain does), the
//     peers its most exact exported-services rule names, kept when the peering is active and
//     its trust bundle received;
//   - SanitizeXFCC: the mesh entry's HTTP.SanitizeXForwardedClientCert;
//   - Peers: every peering whose trust bundle was received.
//
// Consul does not know whether a service is registered; nor does the store: any service
// name has a sidecar's inputs. The error is a chain that does not compile (the service's own,
// or one of those whose targets decide its trust bundles: Consul's agent then has no answer).
func (s *Sidecars) Sidecar(service string) (intentions.Sidecar, error) {
	c := s.get(service)
	return c.side, c.err
}

// Destination returns the sidecar of service compiled (intentions.Compile of Sidecar's
// answer), compiled once and kept: its Decide and Check allocate nothing.
func (s *Sidecars) Destination(service string) (*intentions.Destination, error) {
	c := s.get(service)
	return c.dest, c.err
}

// Decide is Destination(service).Decide: the destination Envoy's decision on a request by
// caller. On a destination already compiled it allocates nothing.
func (s *Sidecars) Decide(service string, caller intentions.Caller, r intentions.Request, acl intentions.ACL) (intentions.Decision, error) {
	d, err := s.Destination(service)
	if err != nil {
		return intentions.Decision{}, err
	}
	return d.Decide(caller, r, acl)
}

// get returns the compiled sidecar of service, computing it on first use.
func (s *Sidecars) get(service string) *compiled {
	s.mu.RLock()
	c := s.dest[service]
	s.mu.RUnlock()
	if c == nil {
		s.mu.Lock()
		if c = s.dest[service]; c == nil {
			c = &compiled{}
			s.dest[service] = c
		}
		s.mu.Unlock()
	}
	c.once.Do(func() {
		c.side, c.err = s.sidecar(service)
		if c.err == nil {
			c.dest, c.err = intentions.Compile(c.side)
		}
	})
	return c
}

// sidecar computes the inputs of the sidecar of service.
func (s *Sidecars) sidecar(service string) (intentions.Sidecar, error) {
	if service == "" || service == intentions.Wildcard {
		return intentions.Sidecar{}, fielderr.Newf("", "Service", service, "must name a service, got %q", service)
	}
	name := exports.ServiceName{Name: service}.Canonical()
	c, err := s.compile(name)
	if err != nil {
		return intentions.Sidecar{}, fmt.Errorf("the chain of %s: %w", service, err)
	}
	bundles, err := s.trustBundles(name)
	if err != nil {
		return intentions.Sidecar{}, err
	}
	var entries []intentions.ConfigEntry
	for _, n := range []string{service, intentions.Wildcard} {
		if e := s.st.live(key{kindServiceIntentions, exports.ServiceName{Name: n}.Canonical()}); e != nil {
			entries = append(entries, *e.intentions())
		}
	}
	return intentions.Sidecar{Service: service, TrustDomain: s.cluster.TrustDomain, Datacenter: s.cluster.Datacenter,
		Intentions: intentions.ForDestination(service, entries), Protocol: s.protocol(name), ChainProtocol: c.Protocol,
		TrustBundles: bundles, SanitizeXFCC: s.mesh.SanitizeXForwardedClientCert, Peers: s.peers}, nil
}

// protocol is the sidecar's own protocol: the registration's, else service-defaults', else
// proxy-defaults', lower-cased.
func (s *Sidecars) protocol(name exports.ServiceName) string {
	p := s.cluster.Protocols[name.Name]
	if d := s.st.live(key{kindServiceDefaults, name}); p == "" && d != nil {
		p = d.protocol()
	}
	if pd := s.st.live(key{kindProxyDefaults, exports.ServiceName{}.Canonical()}); p == "" && pd != nil {
		p = pd.protocol()
	}
	return strings.ToLower(p)
}

// compile compiles the chain of name in the cluster's datacenter and trust domain.
func (s *Sidecars) compile(name exports.ServiceName) (*chain.Chain, error) {
	return chain.Compile(request(name, s.cluster.Datacenter, s.cluster.TrustDomain), s.st.readEntries(name, nil))
}
