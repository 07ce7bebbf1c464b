package exports

import (
	"fmt"
	"maps"
	"slices"

	"github.com/meshscope/meshscope/internal/entryhead"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
)

// Kind is the config entry kind of an exported-services entry.
const Kind = "exported-services"

// Wildcard stands for every service name or every namespace in a rule.
const Wildcard = names.Wildcard

const defaultName = names.Default

// ReservedService is the Consul servers' own service, which is never exported.
const ReservedService = "consul"

// ConfigEntry is an exported-services config entry: the services of one partition (its Name)
// that are exported, and to whom. Field names and JSON are Consul's, so the output of
// `consul config read -kind exported-services -name <partition>` unmarshals directly.
type ConfigEntry struct {
	Kind string `json:"Kind,omitempty"`
	// Name is the partition the entry governs ("default" without admin partitions).
	Name string `json:"Name"`
	// Partition is where Consul Enterprise stores the entry; when set it must equal Name.
	Partition string            `json:"Partition,omitempty"`
	Services  []Service         `json:"Services,omitempty"`
	Meta      map[string]string `json:"Meta,omitempty"`
	// CreateIndex and ModifyIndex are Consul's read-only Raft indexes, kept so that an entry
	// read from Consul encodes back to the same JSON.
	CreateIndex uint64 `json:"CreateIndex,omitempty"`
	ModifyIndex uint64 `json:"ModifyIndex,omitempty"`
}

// Service is one rule: a service name (or "*") in a namespace (or "*"; empty means
// "default") and the consumers it is exported to.
type Service struct {
	Name      string     `json:"Name"`
	Namespace string     `json:"Namespace,omitempty"`
	Consumers []Consumer `json:"Consumers,omitempty"`
}

// Consumer receives an exported service: exactly one of a cluster peer, a local admin
// partition or a sameness group.
type Consumer struct {
	Partition     string `json:"Partition,omitempty"`
	Peer          string `json:"Peer,omitempty"`
	SamenessGroup string `json:"SamenessGroup,omitempty"`
}

// String returns "peer east", "partition web" or "sameness group g1" (several when the
// consumer is invalid and names more than one).
func (c Consumer) String() string {
	s := ""
	add := func(kind, v string) {
		if v == "" {
			return
		}
		if s != "" {
			s += " and "
		}
		s += kind + " " + v
	}
	add("peer", c.Peer)
	add("partition", c.Partition)
	add("sameness group", c.SamenessGroup)
	if s == "" {
		return "nobody"
	}
	return s
}

// Normalize sets Kind to "exported-services" and every empty rule Namespace to "default",
// and changes nothing else.
func (e *ConfigEntry) Normalize() {
	e.Kind = Kind
	for i := range e.Services {
		if e.Services[i].Namespace == "" {
			e.Services[i].Namespace = defaultName
		}
	}
}

// Validate reports every problem in the entry, each prefixed by its path, in the order of
// the entry: Kind, Name, then each rule and its consumers.
//
//	Name: must name a partition, got "*"
//	Services[1]: service name must be wildcard if namespace is wildcard
//	Services[2]: duplicate of Services[0]
//	Services[3].Consumers[0]: exporting to all peers (wildcard) is not supported
//
// Beyond Consul's own checks, meshscope rejects what Consul silently ignores or resolves: a
// second rule for the same namespace and name (Consul lets the later win), an exact rule for
// the reserved service "consul" (Consul skips it), a consumer naming none of Peer, Partition
// and SamenessGroup, a peer name that is not a lowercase DNS label, and a Partition field that
// differs from Name.
func (e *ConfigEntry) Validate() error {
	var c fielderr.Collector
	if e.Kind != "" && e.Kind != Kind {
		c.Add("Kind", e.Kind, fmt.Sprintf("must be %q, got %q", Kind, e.Kind), nil)
	}
	if e.Name == "" || e.Name == Wildcard {
		c.Add("Name", e.Name, fmt.Sprintf("must name a partition, got %q", e.Name), nil)
	}
	if e.Partition != "" && e.Partition != e.Name {
		c.Add("Partition", e.Partition, fmt.Sprintf("%q differs from Name %q; the entry governs the partition its Name gives", e.Partition, e.Name), nil)
	}
	seen := make(map[ServiceName]int, len(e.Services)) // by namespace and name
	for i, s := range e.Services {
		path := strict.Index("Services", i)
		ns := orDefault(s.Namespace)
		switch {
		case s.Name == "":
			c.Add(path, s.Name, "service name cannot be empty", nil)
		case ns == Wildcard && s.Name != Wildcard:
			c.Add(path, s.Name, "service name must be wildcard if namespace is wildcard", nil)
		case s.Name == ReservedService:
			c.Add(path, s.Name, "the "+ReservedService+" service cannot be exported", nil)
		}
		key := ServiceName{Namespace: ns, Name: s.Name}
		if k, dup := seen[key]; dup {
			c.Add(path, s.Name, fmt.Sprintf("duplicate of Services[%d]", k), ErrDuplicateService)
		} else {
			seen[key] = i
		}
		if len(s.Consumers) == 0 {
			c.Add(path, nil, "must have at least one consumer", nil)
		}
		for j, cons := range s.Consumers {
			cons.problems(&c, strict.Index(path+".Consumers", j))
		}
	}
	return c.Err()
}

func (c Consumer) problems(col *fielderr.Collector, path string) {
	add := func(value any, format string, args ...any) {
		col.Add(path, value, fmt.Sprintf(format, args...), nil)
	}
	set := 0
	for _, v := range []string{c.Peer, c.Partition, c.SamenessGroup} {
		if v != "" {
			set++
		}
	}
	switch set {
	case 0:
		add(c, "must define one of Peer, Partition, or SamenessGroup")
	case 1:
	default:
		add(c, "must define at most one of Peer, Partition, or SamenessGroup")
	}
	if c.Partition == Wildcard {
		add(c.Partition, "exporting to all partitions (wildcard) is not supported")
	}
	if c.SamenessGroup == Wildcard {
		add(c.SamenessGroup, "exporting to all sameness groups (wildcard) is not supported")
	}
	switch {
	case c.Peer == Wildcard:
		add(c.Peer, "exporting to all peers (wildcard) is not supported")
	case c.Peer != "" && !names.IsLabel(c.Peer):
		add(c.Peer, "peer name %q must be a lowercase DNS label (%s)", c.Peer, names.Label(c.Peer))
	}
}

func orDefault(s string) string { return names.OrDefault(s) }

// UnmarshalJSON decodes an entry as Consul does — field names in any case, the aliases
// peer_name (and the older PeerName) and sameness_group — but strictly: an unknown field, a
// field given twice under two spellings, or a value of the wrong type is an error naming its
// path, and every problem is reported. It does not validate; call Validate.
func (e *ConfigEntry) UnmarshalJSON(b []byte) error { return entryhead.Unmarshal(b, e, decodeEntry) }

func decodeEntry(d *strict.Decoder, x any, path string) ConfigEntry {
	return entryhead.Object(d, x, path, func(o strict.Object) (e ConfigEntry) {
		o.Check(entryhead.PartitionWith("Services")...)
		h := entryhead.PartitionNames(o)
		e.Services = entryhead.List(d, o, decodeService, "Services")
		entryhead.Rest(d, o, &h)
		e.Kind, e.Name, e.Partition, e.Meta, e.CreateIndex, e.ModifyIndex = h.Kind, h.Name, h.Partition, h.Meta, h.CreateIndex, h.ModifyIndex
		return e
	})
}

func decodeService(d *strict.Decoder, x any, path string) Service {
	return entryhead.Object(d, x, path, func(o strict.Object) (s Service) {
		o.Check("Name", "Namespace", "Consumers")
		o.String(&s.Name, "Name")
		o.String(&s.Namespace, "Namespace")
		s.Consumers = entryhead.List(d, o, decodeConsumer, "Consumers")
		return s
	})
}

func decodeConsumer(d *strict.Decoder, x any, path string) Consumer {
	return entryhead.Object(d, x, path, func(o strict.Object) (c Consumer) {
		peer := []string{"Peer", "PeerName", "peer_name"}
		group := []string{"SamenessGroup", "sameness_group"}
		o.Check(append(append([]string{"Partition"}, peer...), group...)...)
		o.String(&c.Partition, "Partition")
		o.String(&c.Peer, peer...)
		o.String(&c.SamenessGroup, group...)
		return c
	})
}

// LoadEntries reads exported-services entries as `consul config read -kind
// exported-services -name <partition>` prints them: one JSON value, a stream of values (the
// output of several such commands), or a JSON array. Each entry is decoded as
// ConfigEntry.UnmarshalJSON decodes it (keys given twice are errors too) and validated.
// Every problem is reported, naming the value when there are several ("value 2: …") and the
// element of an array ("[1]: Services[0].Consumers[0]: …").
func LoadEntries(data []byte) ([]ConfigEntry, error) {
	return strict.DecodeEntries(data, true, decodeEntry, func(e ConfigEntry) error { return e.Validate() })
}

// clone returns a deep copy of e: no slice or map is shared with e.
func (e ConfigEntry) clone() ConfigEntry {
	e.Services = slices.Clone(e.Services)
	for i := range e.Services {
		e.Services[i].Consumers = slices.Clone(e.Services[i].Consumers)
	}
	e.Meta = maps.Clone(e.Meta)
	return e
}
