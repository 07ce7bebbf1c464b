package chain

import (
	"fmt"
	"maps"
	"slices"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
)

// Validate reports every problem in the resolver, each prefixed by the path of the field, in
// a fixed order (map keys sorted; Consul's order is random, and it reports only the first):
//
//	Subsets["V1"]: Subset "V1" is invalid: must be 63 characters or fewer, begin or end with lower case alphanumeric characters, and contain lower case alphanumeric characters or '-' in between
//	Redirect: Redirect and Failover cannot both be set
//	Redirect.ServiceSubset: Redirect.ServiceSubset defined without Redirect.Service
//	Failover["v2"]: Bad Failover["v2"]: not a valid subset subset
//	ConnectTimeout: Bad ConnectTimeout '-1s', must be >= 0
//
// The messages are Consul v1.16's, word for word (its typo in "not a valid subset subset"
// included), and so are the conditions, with three exceptions worded by meshscope: a Kind
// other than service-resolver; a failover Policy mode (`Bad Failover["k"].Policy:
// Failover-policy mode must be one of …`; Consul Enterprise writes `Bad Failover["k"]:`
// before the same words, and Consul CE refuses every policy); and a PrioritizeByLocality
// mode (Consul CE refuses every one; Enterprise's words are not public). Where Consul CE
// refuses namespaces, partitions, sameness groups and policies as Enterprise features,
// meshscope accepts them, as Enterprise does. Subset filters are not checked: their
// expression language is Consul's.
func (r *ServiceResolver) Validate() error {
	var p problems
	add := p.add
	p.named(resolverKind, r.Kind, r.Name)
	metaProblems(&p, r.Meta)
	r.subsetProblems(&p)
	defaultPartition := orDefault(r.Partition) == defaultName
	if r.Redirect != nil {
		r.redirectProblems(&p, defaultPartition)
	}
	for _, key := range sortedKeys(r.Failover) {
		r.failoverProblems(&p, key, r.Failover[key], defaultPartition)
	}
	if r.ConnectTimeout < 0 {
		add("ConnectTimeout", "Bad ConnectTimeout '%s', must be >= 0", r.ConnectTimeout)
	}
	if r.RequestTimeout < 0 {
		add("RequestTimeout", "Bad RequestTimeout '%s', must be >= 0", r.RequestTimeout)
	}
	r.LoadBalancer.problems(&p)
	if pl := r.PrioritizeByLocality; pl != nil && pl.Mode != "" && pl.Mode != "none" && pl.Mode != "failover" {
		add("PrioritizeByLocality", "mode must be one of '', 'none', or 'failover'")
	}
	return p.Err()
}

// subsetProblems checks the subsets' names and DefaultSubset.
func (r *ServiceResolver) subsetProblems(p *problems) {
	add := p.add
	for _, name := range sortedKeys(r.Subsets) {
		path := strict.Key("Subsets", name)
		switch {
		case name == "":
			add(path, "Subset defined with empty name")
		case len(name) > 63:
			add(path, "Subset %q is invalid: must be non-empty and 63 characters or fewer", name)
		case !names.IsLabel(name):
			add(path, "Subset %q is invalid: must be 63 characters or fewer, begin or end with lower case alphanumeric characters, and contain lower case alphanumeric characters or '-' in between", name)
		}
	}
	if r.DefaultSubset != "" && !r.isSubset(r.DefaultSubset) {
		add("DefaultSubset", "DefaultSubset %q is not a valid subset", r.DefaultSubset)
	}
}

// redirectProblems checks Redirect: what it may not be combined with, what needs
// Redirect.Service, and where a cross-datacenter redirect may go.
func (r *ServiceResolver) redirectProblems(p *problems, defaultPartition bool) {
	add, rd := p.add, r.Redirect
	if len(r.Failover) > 0 {
		add("Redirect", "Redirect and Failover cannot both be set")
	}
	if *rd == (Redirect{}) {
		add("Redirect", "Redirect is empty")
	}
	// The fields Consul refuses together, in its order: the first named is the one at fault.
	for _, c := range []struct {
		both                bool
		field, conflictWith string
	}{
		{rd.SamenessGroup != "" && rd.ServiceSubset != "", "SamenessGroup", "ServiceSubset"},
		{rd.SamenessGroup != "" && rd.Partition != "", "Partition", "SamenessGroup"},
		{rd.SamenessGroup != "" && rd.Datacenter != "", "SamenessGroup", "Datacenter"},
		{rd.SamenessGroup != "" && rd.Peer != "", "Peer", "SamenessGroup"},
		{rd.Peer != "" && rd.ServiceSubset != "", "Peer", "ServiceSubset"},
		{rd.Peer != "" && rd.Partition != "", "Partition", "Peer"},
		{rd.Peer != "" && rd.Datacenter != "", "Peer", "Datacenter"},
	} {
		if c.both {
			add("Redirect."+c.field, "Redirect.%s cannot be set with Redirect.%s", c.field, c.conflictWith)
		}
	}
	if rd.Service == "" {
		without := func(name, value string) {
			if value != "" {
				add("Redirect."+name, "Redirect.%s defined without Redirect.Service", name)
			}
		}
		without("ServiceSubset", rd.ServiceSubset)
		without("Namespace", rd.Namespace)
		without("Partition", rd.Partition)
		without("Peer", rd.Peer)
	}
	// As Consul: a subset of the resolver's own name is checked against its own subsets,
	// whatever namespace or partition the redirect names.
	if rd.ServiceSubset != "" && rd.Service == r.Name && !r.isSubset(rd.ServiceSubset) {
		add("Redirect.ServiceSubset", "Redirect.ServiceSubset %q is not a valid subset of %q", rd.ServiceSubset, r.Name)
	}
	if rd.Datacenter != "" && !defaultPartition {
		add("Redirect.Datacenter", "Cross-datacenter redirect is only supported in the default partition")
	}
	if rd.Datacenter != "" && orDefault(rd.Partition) != orDefault(r.Partition) {
		add("Redirect.Partition", "Cross-datacenter and cross-partition redirect is not supported")
	}
}

// problems collects validation errors; it allocates only when there are some.
type problems struct{ fielderr.Collector }

func (p *problems) add(path, format string, args ...any) {
	p.Add(path, nil, fmt.Sprintf(format, args...), nil)
}

// addValue records a problem with the value found at path.
func (p *problems) addValue(path string, value any, format string, args ...any) {
	p.Add(path, value, fmt.Sprintf(format, args...), nil)
}

func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}

func (r *ServiceResolver) failoverProblems(p *problems, key string, f Failover, defaultPartition bool) {
	path := strict.Key("Failover", key)
	bad := fmt.Sprintf("Bad Failover[%q]", key)
	add := p.add
	if key != wildcard && !r.isSubset(key) {
		add(path, "%s: not a valid subset subset", bad) // Consul's words, typo included
	}
	if f.Service == "" && f.ServiceSubset == "" && f.Namespace == "" && len(f.Targets) == 0 && len(f.Datacenters) == 0 && f.SamenessGroup == "" {
		add(path, "%s: one of Service, ServiceSubset, Namespace, Targets, SamenessGroup, or Datacenters is required", bad)
	}
	if f.SamenessGroup != "" {
		for _, c := range []struct {
			name string
			set  bool
		}{{"Datacenters", len(f.Datacenters) > 0}, {"ServiceSubset", f.ServiceSubset != ""}, {"Targets", len(f.Targets) > 0}} {
			if c.set {
				add(path, "%s: SamenessGroup cannot be set with %s", bad, c.name)
			}
		}
	}
	if pol := f.Policy; pol != nil && pol.Mode != "" && pol.Mode != "sequential" && pol.Mode != "order-by-locality" {
		add(path+".Policy", "%s.Policy: Failover-policy mode must be one of '', 'sequential', or 'order-by-locality'", bad)
	}
	if len(f.Targets) > 0 {
		for _, c := range []struct {
			name string
			set  bool
		}{{"Datacenters", len(f.Datacenters) > 0}, {"ServiceSubset", f.ServiceSubset != ""}, {"Service", f.Service != ""}} {
			if c.set {
				add(path, "%s: Targets cannot be set with %s", bad, c.name)
			}
		}
	}
	// As Consul: the section's own service (named or not, in any namespace) is checked, and
	// the message names the service as the section writes it ("" when it names none).
	if f.ServiceSubset != "" && (f.Service == "" || f.Service == r.Name) && !r.isSubset(f.ServiceSubset) {
		add(path, "%s: ServiceSubset %q is not a valid subset of %q", bad, f.ServiceSubset, f.Service)
	}
	for _, dc := range f.Datacenters {
		if dc == "" {
			add(path+".Datacenters", "%s.Datacenters: found empty datacenter", bad)
			break
		}
	}
	if len(f.Datacenters) > 0 && !defaultPartition {
		add(path+".Datacenters", "Cross-datacenter failover is only supported in the default partition")
	}
	for i, t := range f.Targets {
		r.targetProblems(p, path, bad, i, t)
	}
}

// targetProblems checks Failover[key].Targets[i].
func (r *ServiceResolver) targetProblems(p *problems, path, bad string, i int, t FailoverTarget) {
	add := p.add
	tadd := func(format string, args ...any) { // paths are built only for a problem
		tpath, tbad := strict.Index(path+".Targets", i), strict.Index(bad+".Targets", i)
		add(tpath, "%s: %s", tbad, fmt.Sprintf(format, args...))
	}
	if t.Peer != "" && t.ServiceSubset != "" {
		tadd("Peer cannot be set with ServiceSubset")
	}
	if t.Partition != "" && t.Peer != "" {
		tadd("Partition cannot be set with Peer")
	}
	if t.Peer != "" && t.Datacenter != "" {
		tadd("Peer cannot be set with Datacenter")
	}
	if t.Partition != "" && t.Datacenter != "" {
		tadd("Partition cannot be set with Datacenter")
	}
	if t.ServiceSubset != "" && t.Peer == "" && (t.Service == "" || t.Service == r.Name) && !r.isSubset(t.ServiceSubset) {
		tadd("ServiceSubset %q is not a valid subset of %q", t.ServiceSubset, r.Name)
	}
}

// problems reports, in Consul's words, a load balancer Consul refuses.
func (lb *LoadBalancer) problems(p *problems) {
	if lb == nil {
		return
	}
	const path = "LoadBalancer"
	switch lb.Policy {
	case "", "random", "round_robin", "least_request", "ring_hash", "maglev":
	default:
		p.add(path, "Bad LoadBalancer policy: %q is not supported", lb.Policy)
	}
	if lb.Policy != "ring_hash" && lb.RingHashConfig != nil {
		p.add(path, "Bad LoadBalancer configuration. RingHashConfig specified for incompatible load balancing policy %q", lb.Policy)
	}
	if lb.Policy != "least_request" && lb.LeastRequestConfig != nil {
		p.add(path, "Bad LoadBalancer configuration. LeastRequestConfig specified for incompatible load balancing policy %q", lb.Policy)
	}
	if lb.Policy != "ring_hash" && lb.Policy != "maglev" && len(lb.HashPolicies) > 0 {
		p.add(path, "Bad LoadBalancer configuration: HashPolicies specified for non-hash-based Policy: %q", lb.Policy)
	}
	for i, h := range lb.HashPolicies {
		hp := strict.Index(path+".HashPolicies", i)
		bad := fmt.Sprintf("Bad LoadBalancer HashPolicy[%d]", i)
		switch h.Field {
		case "", "header", "cookie", "query_parameter":
		default:
			p.add(hp, "%s: %q is not a supported field", bad, h.Field)
		}
		if h.SourceIP && h.Field != "" {
			p.add(hp, "%s: A single hash policy cannot hash both a source address and a %q", bad, h.Field)
		}
		if h.SourceIP && h.FieldValue != "" {
			p.add(hp, "%s: A FieldValue cannot be specified when hashing SourceIP", bad)
		}
		if h.Field != "" && h.FieldValue == "" {
			p.add(hp, "%s: Field %q was specified without a FieldValue", bad, h.Field)
		}
		if h.FieldValue != "" && h.Field == "" {
			p.add(hp, "%s: FieldValue requires a Field to apply to", bad)
		}
		if c := h.CookieConfig; c != nil {
			if h.Field != "cookie" {
				p.add(hp, "%s: cookie_config provided for %q", bad, h.Field)
			}
			if c.Session && c.TTL != 0 {
				p.add(hp, "%s: a session cookie cannot have an associated TTL", bad)
			}
		}
	}
}
