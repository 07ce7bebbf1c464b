package chain

import (
	"maps"
	"slices"
	"time"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/names"
)

const (
	defaultName = names.Default
	wildcard    = names.Wildcard
	// Each entry's Kind: the one value Validate accepts besides "" (and the one a router or
	// splitter is given when it is normalised).
	resolverKind = names.KindServiceResolver
	routerKind   = names.KindServiceRouter
	splitterKind = names.KindServiceSplitter
)

// ServiceResolver is a Consul service-resolver config entry: how requests for the service
// Name are resolved to instances — subsets, a default subset, a redirect elsewhere, failover.
// Field names and JSON are Consul's, so `consul config read -kind service-resolver` output
// unmarshals directly (see UnmarshalJSON).
type ServiceResolver struct {
	Kind      string `json:"Kind,omitempty"`
	Name      string `json:"Name"`
	Namespace string `json:"Namespace,omitempty"`
	Partition string `json:"Partition,omitempty"`
	// DefaultSubset is used when a request names no subset.
	DefaultSubset string `json:"DefaultSubset,omitempty"`
	// Subsets are named filters over the service's instances.
	Subsets map[string]Subset `json:"Subsets,omitempty"`
	// Redirect sends every request for the service elsewhere; exclusive with Failover.
	Redirect *Redirect `json:"Redirect,omitempty"`
	// Failover is keyed by subset name, or "*" for any subset without its own section.
	Failover map[string]Failover `json:"Failover,omitempty"`
	// ConnectTimeout and RequestTimeout encode in JSON as duration strings such as "5s".
	ConnectTimeout time.Duration     `json:"-"`
	RequestTimeout time.Duration     `json:"-"`
	Meta           map[string]string `json:"Meta,omitempty"`
	// LoadBalancer is how a proxy spreads requests over the service's instances; every
	// target of the service carries it.
	LoadBalancer *LoadBalancer `json:"LoadBalancer,omitempty"`
	// PrioritizeByLocality asks proxies to prefer instances near them. It never changes
	// which targets a chain has.
	PrioritizeByLocality *PrioritizeByLocality `json:"PrioritizeByLocality,omitempty"`
	CreateIndex          uint64                `json:"CreateIndex,omitempty"`
	ModifyIndex          uint64                `json:"ModifyIndex,omitempty"`
}

// Subset selects some of a service's instances.
type Subset struct {
	// Filter is a Consul filter expression over the instances (not checked by meshscope).
	Filter      string `json:"Filter,omitempty"`
	OnlyPassing bool   `json:"OnlyPassing,omitempty"`
}

// Redirect sends requests to another service, subset, namespace, partition, datacenter or
// peer — or, with SamenessGroup, keeps them and fails over to the group's members.
type Redirect struct {
	Service       string `json:"Service,omitempty"`
	ServiceSubset string `json:"ServiceSubset,omitempty"`
	Namespace     string `json:"Namespace,omitempty"`
	Partition     string `json:"Partition,omitempty"`
	Datacenter    string `json:"Datacenter,omitempty"`
	Peer          string `json:"Peer,omitempty"`
	SamenessGroup string `json:"SamenessGroup,omitempty"`
}

// Failover says where requests go when every instance of a subset is unhealthy: other
// datacenters, an explicit ordered list of targets, the members of a sameness group, or
// another service, subset or namespace.
type Failover struct {
	Service       string           `json:"Service,omitempty"`
	ServiceSubset string           `json:"ServiceSubset,omitempty"`
	Namespace     string           `json:"Namespace,omitempty"`
	Datacenters   []string         `json:"Datacenters,omitempty"`
	Targets       []FailoverTarget `json:"Targets,omitempty"`
	SamenessGroup string           `json:"SamenessGroup,omitempty"`
	// Policy orders the failover targets when a proxy is configured; it never changes
	// which targets the chain has.
	Policy *FailoverPolicy `json:"Policy,omitempty"`
}

// FailoverTarget is one entry of Failover.Targets.
type FailoverTarget struct {
	Service       string `json:"Service,omitempty"`
	ServiceSubset string `json:"ServiceSubset,omitempty"`
	Partition     string `json:"Partition,omitempty"`
	Namespace     string `json:"Namespace,omitempty"`
	Datacenter    string `json:"Datacenter,omitempty"`
	Peer          string `json:"Peer,omitempty"`
}

// FailoverPolicy is a failover section's policy: Mode "" or "sequential" (try the targets
// in order) or "order-by-locality" (regroup them by Regions, nearest first).
type FailoverPolicy struct {
	Mode    string   `json:"Mode,omitempty"`
	Regions []string `json:"Regions,omitempty"`
}

// PrioritizeByLocality is the resolver's locality preference: Mode "", "none" or "failover".
type PrioritizeByLocality struct {
	Mode string `json:"Mode,omitempty"`
}

// LoadBalancer is Consul's load-balancing configuration of a service: a Policy ("random",
// "round_robin", "least_request", "ring_hash" or "maglev"; "" for the proxy's default), the
// configuration of ring_hash or least_request, and for the hash-based policies what to hash.
type LoadBalancer struct {
	Policy             string              `json:"Policy,omitempty"`
	RingHashConfig     *RingHashConfig     `json:"RingHashConfig,omitempty"`
	LeastRequestConfig *LeastRequestConfig `json:"LeastRequestConfig,omitempty"`
	HashPolicies       []HashPolicy        `json:"HashPolicies,omitempty"`
}

// RingHashConfig sizes the ring of the ring_hash policy.
type RingHashConfig struct {
	MinimumRingSize uint64 `json:"MinimumRingSize,omitempty"`
	MaximumRingSize uint64 `json:"MaximumRingSize,omitempty"`
}

// LeastRequestConfig is the least_request policy's number of random choices.
type LeastRequestConfig struct {
	ChoiceCount uint32 `json:"ChoiceCount,omitempty"`
}

// HashPolicy is one thing a hash-based policy hashes: a header, cookie or query parameter
// (Field and FieldValue), or the source address (SourceIP).
type HashPolicy struct {
	Field        string        `json:"Field,omitempty"`
	FieldValue   string        `json:"FieldValue,omitempty"`
	CookieConfig *CookieConfig `json:"CookieConfig,omitempty"`
	SourceIP     bool          `json:"SourceIP,omitempty"`
	Terminal     bool          `json:"Terminal,omitempty"`
}

// CookieConfig is the cookie a cookie hash policy makes the proxy generate. TTL encodes in
// JSON as Consul writes it, an integer of nanoseconds (552000000000 for 9m12s): unlike the
// resolver's timeouts, Consul gives CookieConfig no marshaller of its own. Reading accepts
// that and a duration string such as "10s".
type CookieConfig struct {
	Session bool          `json:"Session,omitempty"`
	TTL     time.Duration `json:"TTL,omitempty"`
	Path    string        `json:"Path,omitempty"`
}

// clone returns a deep copy of lb; nil stays nil.
func (lb *LoadBalancer) clone() *LoadBalancer {
	if lb == nil {
		return nil
	}
	c := *lb
	if lb.RingHashConfig != nil {
		r := *lb.RingHashConfig
		c.RingHashConfig = &r
	}
	if lb.LeastRequestConfig != nil {
		l := *lb.LeastRequestConfig
		c.LeastRequestConfig = &l
	}
	c.HashPolicies = slices.Clone(lb.HashPolicies)
	for i, h := range c.HashPolicies {
		if h.CookieConfig != nil {
			cc := *h.CookieConfig
			c.HashPolicies[i].CookieConfig = &cc
		}
	}
	return &c
}

// clone returns a deep copy of p; nil stays nil.
func (p *FailoverPolicy) clone() *FailoverPolicy {
	if p == nil {
		return nil
	}
	return &FailoverPolicy{Mode: p.Mode, Regions: slices.Clone(p.Regions)}
}

// clone returns a deep copy of r: no slice, map or pointer is shared with r. The copy of
// the Redirect, if any, is written to rd.
func (r *ServiceResolver) clone(rd *Redirect) ServiceResolver {
	c := *r
	c.Subsets = maps.Clone(r.Subsets)
	c.Meta = maps.Clone(r.Meta)
	if r.Redirect != nil {
		*rd = *r.Redirect
		c.Redirect = rd
	}
	if r.Failover != nil {
		c.Failover = make(map[string]Failover, len(r.Failover))
		for k, f := range r.Failover {
			f.Datacenters = slices.Clone(f.Datacenters)
			f.Targets = slices.Clone(f.Targets)
			f.Policy = f.Policy.clone()
			c.Failover[k] = f
		}
	}
	c.LoadBalancer = r.LoadBalancer.clone()
	if r.PrioritizeByLocality != nil {
		p := *r.PrioritizeByLocality
		c.PrioritizeByLocality = &p
	}
	return c
}

func orDefault(s string) string { return names.OrDefault(s) }

// ServiceName returns the resolver's service, canonical.
func (r *ServiceResolver) ServiceName() exports.ServiceName {
	return exports.ServiceName{Partition: r.Partition, Namespace: r.Namespace, Name: r.Name}.Canonical()
}

// Related returns the local services the resolver redirects or fails over to — its
// redirect's service (a redirect to a peer included: the service it names), each failover
// section's Service (its own, for a section of datacenters or a sameness group) and each
// failover target not on a peer — in its namespace and partition unless they give others,
// canonical, once each, its own service left out, in the order CheckPeerExport visits them.
// They are the services Consul's server reads next when it reads the resolver, and whose
// writes make it recompile the resolver's chain (its link index).
func (r *ServiceResolver) Related() []exports.ServiceName {
	own := r.ServiceName()
	var out []exports.ServiceName
	r.names(func(s exports.ServiceName) {
		if s != own && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}, func(string) {})
	return out
}

// SamenessGroups returns the sameness groups the resolver's redirect and failover sections
// name, in the order Related visits them; a name given twice is listed twice.
func (r *ServiceResolver) SamenessGroups() []string {
	var out []string
	r.names(func(exports.ServiceName) {}, func(g string) { out = append(out, g) })
	return out
}

func (r *ServiceResolver) isSubset(name string) bool {
	_, ok := r.Subsets[name]
	return ok
}
