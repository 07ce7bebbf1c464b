package chain

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
)

// Kind is the config entry kind of a service resolver.
const Kind = "service-resolver"

const (
	defaultName = "default"
	wildcard    = "*"
)

// ServiceResolver is a Consul service-resolver config entry: how requests for the service
// Name are resolved to instances — subsets, a default subset, a redirect elsewhere, failover.
// Field names and JSON are Consul's, so `consul config read -kind service-resolver` output
// unmarshals directly.
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
	// LoadBalancer and PrioritizeByLocality are kept verbatim so that an entry read from
	// Consul encodes back unchanged; they do not change which targets a chain reaches.
	LoadBalancer         json.RawMessage `json:"LoadBalancer,omitempty"`
	PrioritizeByLocality json.RawMessage `json:"PrioritizeByLocality,omitempty"`
	CreateIndex          uint64          `json:"CreateIndex,omitempty"`
	ModifyIndex          uint64          `json:"ModifyIndex,omitempty"`
}

// Subset selects some of a service's instances.
type Subset struct {
	Filter      string `json:"Filter,omitempty"`
	OnlyPassing bool   `json:"OnlyPassing,omitempty"`
}

// Redirect sends requests to another service, subset, namespace, partition, datacenter or
// peer.
type Redirect struct {
	Service       string `json:"Service,omitempty"`
	ServiceSubset string `json:"ServiceSubset,omitempty"`
	Namespace     string `json:"Namespace,omitempty"`
	Partition     string `json:"Partition,omitempty"`
	Datacenter    string `json:"Datacenter,omitempty"`
	Peer          string `json:"Peer,omitempty"`
}

// Failover says where requests go when every instance of a subset is unhealthy: other
// datacenters, an explicit ordered list of targets, or another service, subset or namespace.
type Failover struct {
	Service       string           `json:"Service,omitempty"`
	ServiceSubset string           `json:"ServiceSubset,omitempty"`
	Namespace     string           `json:"Namespace,omitempty"`
	Datacenters   []string         `json:"Datacenters,omitempty"`
	Targets       []FailoverTarget `json:"Targets,omitempty"`
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

func orDefault(s string) string {
	if s == "" {
		return defaultName
	}
	return s
}

// ID returns the resolver's service as "partition/namespace/name", canonical.
func (r *ServiceResolver) ID() string {
	return orDefault(r.Partition) + "/" + orDefault(r.Namespace) + "/" + r.Name
}

func (r *ServiceResolver) isSubset(name string) bool {
	_, ok := r.Subsets[name]
	return ok
}

// ownService reports whether service (in namespace and partition; empty means "the
// resolver's own") is the resolver's own service.
func (r *ServiceResolver) ownService(service, namespace, partition, peer string) bool {
	return (service == "" || service == r.Name) &&
		(namespace == "" || orDefault(namespace) == orDefault(r.Namespace)) &&
		(partition == "" || orDefault(partition) == orDefault(r.Partition)) &&
		peer == ""
}

// Validate reports every problem in the resolver, each prefixed by the path of the field and
// worded as Consul words it, in a fixed order (map keys sorted; Consul's order is random):
//
//	Subsets["V1"]: Subset "V1" is invalid: must be lower case
//	Redirect: Redirect and Failover cannot both be set
//	Redirect.ServiceSubset: Redirect.ServiceSubset defined without Redirect.Service
//	Failover["v2"]: Bad Failover["v2"]: not a valid subset
//	ConnectTimeout: Bad ConnectTimeout '-1s', must be >= 0
//
// Subset filters are not checked: their expression language is Consul's.
func (r *ServiceResolver) Validate() error {
	var p problems
	add := p.add
	if r.Kind != "" && r.Kind != Kind {
		add("Kind", "must be %q, got %q", Kind, r.Kind)
	}
	if r.Name == "" {
		add("Name", "Name is required")
	}
	for _, name := range sortedKeys(r.Subsets) {
		path := strict.Key("Subsets", name)
		switch {
		case name == "":
			add(path, "Subset defined with empty name")
		case !names.IsLabel(name):
			add(path, "Subset %q is invalid: %s", name, names.Label(name))
		}
	}
	if r.DefaultSubset != "" && !r.isSubset(r.DefaultSubset) {
		add("DefaultSubset", "DefaultSubset %q is not a valid subset", r.DefaultSubset)
	}
	defaultPartition := orDefault(r.Partition) == defaultName
	if rd := r.Redirect; rd != nil {
		if len(r.Failover) > 0 {
			add("Redirect", "Redirect and Failover cannot both be set")
		}
		if *rd == (Redirect{}) {
			add("Redirect", "Redirect is empty")
		}
		if rd.Peer != "" {
			if rd.ServiceSubset != "" {
				add("Redirect.Peer", "Redirect.Peer cannot be set with Redirect.ServiceSubset")
			}
			if rd.Partition != "" {
				add("Redirect.Partition", "Redirect.Partition cannot be set with Redirect.Peer")
			}
			if rd.Datacenter != "" {
				add("Redirect.Peer", "Redirect.Peer cannot be set with Redirect.Datacenter")
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
		if rd.ServiceSubset != "" && rd.Service != "" && r.ownService(rd.Service, rd.Namespace, rd.Partition, rd.Peer) && !r.isSubset(rd.ServiceSubset) {
			add("Redirect.ServiceSubset", "Redirect.ServiceSubset %q is not a valid subset of %q", rd.ServiceSubset, r.Name)
		}
		if rd.Datacenter != "" && (!defaultPartition || orDefault(rd.Partition) != defaultName) {
			add("Redirect.Datacenter", "Cross-datacenter redirect is only supported in the default partition")
		}
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
	return errors.Join(p.errs...)
}

// problems collects validation errors; it allocates only when there are some.
type problems struct{ errs []error }

func (p *problems) add(path, format string, args ...any) {
	p.errs = append(p.errs, &FieldError{Field: path, Detail: fmt.Sprintf(format, args...)})
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
		add(path, "%s: not a valid subset", bad)
	}
	if f.Service == "" && f.ServiceSubset == "" && f.Namespace == "" && len(f.Targets) == 0 && len(f.Datacenters) == 0 {
		add(path, "%s: one of Service, ServiceSubset, Namespace, Targets, or Datacenters is required", bad)
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
	if f.ServiceSubset != "" && r.ownService(f.Service, f.Namespace, "", "") && !r.isSubset(f.ServiceSubset) {
		add(path, "%s: ServiceSubset %q is not a valid subset of %q", bad, f.ServiceSubset, r.Name)
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
		if t.ServiceSubset != "" && r.ownService(t.Service, t.Namespace, t.Partition, t.Peer) && !r.isSubset(t.ServiceSubset) {
			tadd("ServiceSubset %q is not a valid subset of %q", t.ServiceSubset, r.Name)
		}
		if t.Datacenter != "" && !defaultPartition {
			add(strict.Index(path+".Targets", i), "Cross-datacenter failover is only supported in the default partition")
		}
	}
}

// resolverFields has ServiceResolver's fields and none of its methods.
type resolverFields ServiceResolver

// resolverJSON is the wire form: durations as strings.
type resolverJSON struct {
	resolverFields
	ConnectTimeout string `json:"ConnectTimeout,omitempty"`
	RequestTimeout string `json:"RequestTimeout,omitempty"`
}

// MarshalJSON encodes the resolver as Consul does, with durations as strings ("5s") and
// zero durations left out.
func (r ServiceResolver) MarshalJSON() ([]byte, error) {
	w := resolverJSON{resolverFields: resolverFields(r)}
	if r.ConnectTimeout != 0 {
		w.ConnectTimeout = r.ConnectTimeout.String()
	}
	if r.RequestTimeout != 0 {
		w.RequestTimeout = r.RequestTimeout.String()
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes a resolver as Consul does — field names in any case and Consul's
// snake_case aliases (default_subset, only_passing, service_subset, connect_timeout,
// request_timeout, load_balancer, prioritize_by_locality), durations as strings like "5s" or
// as nanoseconds — but strictly: an unknown field, a field given twice, or a value of the
// wrong type is an error naming its path, and every problem is reported. Sameness-group
// failover and redirects and failover policies are rejected as unsupported rather than
// ignored, since ignoring them would give the wrong targets. It does not validate; call
// Validate.
func (r *ServiceResolver) UnmarshalJSON(b []byte) error {
	got, err := strict.Unmarshal(b, true, decodeResolver)
	if err != nil {
		return err
	}
	*r = got
	return nil
}

func decodeResolver(d *strict.Decoder, x any, path string) ServiceResolver {
	var r ServiceResolver
	o, ok := d.Object(x, path)
	if !ok {
		return r
	}
	lb := []string{"LoadBalancer", "load_balancer"}
	pbl := []string{"PrioritizeByLocality", "prioritize_by_locality"}
	ds := []string{"DefaultSubset", "default_subset"}
	ct := []string{"ConnectTimeout", "connect_timeout"}
	rt := []string{"RequestTimeout", "request_timeout"}
	o.Check(slices.Concat([]string{"Kind", "Name", "Namespace", "Partition", "Subsets", "Redirect", "Failover", "Meta", "CreateIndex", "ModifyIndex"}, lb, pbl, ds, ct, rt)...)
	o.String(&r.Kind, "Kind")
	o.String(&r.Name, "Name")
	o.String(&r.Namespace, "Namespace")
	o.String(&r.Partition, "Partition")
	o.String(&r.DefaultSubset, ds...)
	if v, p, ok := o.Get("Subsets"); ok {
		if so, ok := d.Object(v, p); ok {
			for _, k := range slices.Sorted(maps.Keys(v.(map[string]any))) {
				if r.Subsets == nil {
					r.Subsets = map[string]Subset{}
				}
				r.Subsets[k] = decodeSubset(d, v.(map[string]any)[k], strict.Key(so.Path(), k))
			}
		}
	}
	if v, p, ok := o.Get("Redirect"); ok {
		r.Redirect = decodeRedirect(d, v, p)
	}
	if v, p, ok := o.Get("Failover"); ok {
		if fo, ok := d.Object(v, p); ok {
			for _, k := range slices.Sorted(maps.Keys(v.(map[string]any))) {
				if r.Failover == nil {
					r.Failover = map[string]Failover{}
				}
				r.Failover[k] = decodeFailover(d, v.(map[string]any)[k], strict.Key(fo.Path(), k))
			}
		}
	}
	if v, p, ok := o.Get(ct...); ok {
		r.ConnectTimeout = decodeDuration(d, v, p)
	}
	if v, p, ok := o.Get(rt...); ok {
		r.RequestTimeout = decodeDuration(d, v, p)
	}
	if v, p, ok := o.Get("Meta"); ok {
		r.Meta = d.StringMap(v, p)
	}
	raw := func(dst *json.RawMessage, names ...string) {
		if v, p, ok := o.Get(names...); ok {
			b, err := json.Marshal(v)
			if err != nil {
				d.Errorf(p, "%v", err)
			}
			*dst = b
		}
	}
	raw(&r.LoadBalancer, lb...)
	raw(&r.PrioritizeByLocality, pbl...)
	if v, p, ok := o.Get("CreateIndex"); ok {
		r.CreateIndex = d.Uint(v, p)
	}
	if v, p, ok := o.Get("ModifyIndex"); ok {
		r.ModifyIndex = d.Uint(v, p)
	}
	return r
}

func decodeDuration(d *strict.Decoder, x any, path string) time.Duration {
	switch t := x.(type) {
	case string:
		dur, err := time.ParseDuration(t)
		if err != nil {
			d.Errorf(path, "%q is not a duration such as \"5s\"", t)
		}
		return dur
	case json.Number:
		ns, err := strconv.ParseInt(string(t), 10, 64)
		if err != nil {
			d.Errorf(path, "%s is not a whole number of nanoseconds up to %d", t, int64(math.MaxInt64))
		}
		return time.Duration(ns)
	}
	d.Errorf(path, "must be a duration such as \"5s\", got %s", strict.Describe(x))
	return 0
}

func decodeSubset(d *strict.Decoder, x any, path string) Subset {
	var s Subset
	o, ok := d.Object(x, path)
	if !ok {
		return s
	}
	op := []string{"OnlyPassing", "only_passing"}
	o.Check(append([]string{"Filter"}, op...)...)
	o.String(&s.Filter, "Filter")
	if v, p, ok := o.Get(op...); ok {
		s.OnlyPassing = d.Bool(v, p)
	}
	return s
}

var subsetNames = []string{"ServiceSubset", "service_subset"}

// unsupported reports Consul fields meshscope does not model and must not ignore.
func unsupported(d *strict.Decoder, o strict.Object, what string, names ...string) {
	if _, p, ok := o.Get(names...); ok {
		d.Errorf(p, "%s is not supported by meshscope; ignoring it would give the wrong targets", what)
	}
}

func decodeRedirect(d *strict.Decoder, x any, path string) *Redirect {
	o, ok := d.Object(x, path)
	if !ok {
		return nil
	}
	sg := []string{"SamenessGroup", "sameness_group"}
	o.Check(slices.Concat([]string{"Service", "Namespace", "Partition", "Datacenter", "Peer"}, subsetNames, sg)...)
	unsupported(d, o, "a redirect to a sameness group", sg...)
	r := &Redirect{}
	o.String(&r.Service, "Service")
	o.String(&r.ServiceSubset, subsetNames...)
	o.String(&r.Namespace, "Namespace")
	o.String(&r.Partition, "Partition")
	o.String(&r.Datacenter, "Datacenter")
	o.String(&r.Peer, "Peer")
	return r
}

func decodeFailover(d *strict.Decoder, x any, path string) Failover {
	var f Failover
	o, ok := d.Object(x, path)
	if !ok {
		return f
	}
	sg := []string{"SamenessGroup", "sameness_group"}
	o.Check(slices.Concat([]string{"Service", "Namespace", "Datacenters", "Targets", "Policy"}, subsetNames, sg)...)
	unsupported(d, o, "failover to a sameness group", sg...)
	unsupported(d, o, "a failover policy", "Policy")
	o.String(&f.Service, "Service")
	o.String(&f.ServiceSubset, subsetNames...)
	o.String(&f.Namespace, "Namespace")
	if v, p, ok := o.Get("Datacenters"); ok {
		f.Datacenters = d.Strings(v, p)
	}
	if v, p, ok := o.Get("Targets"); ok {
		for i, item := range d.List(v, p) {
			f.Targets = append(f.Targets, decodeTarget(d, item, strict.Index(p, i)))
		}
	}
	return f
}

func decodeTarget(d *strict.Decoder, x any, path string) FailoverTarget {
	var t FailoverTarget
	o, ok := d.Object(x, path)
	if !ok {
		return t
	}
	o.Check(slices.Concat([]string{"Service", "Partition", "Namespace", "Datacenter", "Peer"}, subsetNames)...)
	o.String(&t.Service, "Service")
	o.String(&t.ServiceSubset, subsetNames...)
	o.String(&t.Partition, "Partition")
	o.String(&t.Namespace, "Namespace")
	o.String(&t.Datacenter, "Datacenter")
	o.String(&t.Peer, "Peer")
	return t
}

// LoadResolvers reads service-resolver entries as `consul config read -kind
// service-resolver -name <service>` prints them: one JSON value, a stream of values (the
// output of several such commands), or a JSON array. Each entry is decoded as
// ServiceResolver.UnmarshalJSON decodes it (keys given twice are errors too) and validated.
// Every problem is reported, naming the value when there are several ("value 2: …") and the
// element of an array ("[1]: Redirect is empty").
func LoadResolvers(data []byte) ([]ServiceResolver, error) {
	return strict.DecodeEntries(data, true, func(d *strict.Decoder, x any, path string) ServiceResolver {
		before := len(d.Errs())
		r := decodeResolver(d, x, path)
		if len(d.Errs()) == before {
			d.Add(strict.Prefix(strict.At(path), r.Validate()))
		}
		return r
	})
}
