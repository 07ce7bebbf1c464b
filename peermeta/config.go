package peermeta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/internal/strict"
)

// Config is what replication reads from `consul config read` output: the exported-services
// entries, and the discovery-chain entries — service-resolver, service-router,
// service-splitter, service-defaults (each service's Protocol), proxy-defaults (its
// Config.protocol) and sameness-group. Findings
// name the entries of the other kinds, which were skipped. The zero Config holds nothing;
// Add reads into it.
type Config struct {
	Exports  []exports.ConfigEntry
	Entries  chain.Entries
	Findings []Finding

	seen          map[entryKey]string // where each entry was read, for repeats
	proxyDefaults bool                // a proxy-defaults entry was read
}

// entryKey names a config entry as Consul stores it: kind and canonical name.
type entryKey struct {
	kind string
	name exports.ServiceName // the service; the partition alone for exported-services and proxy-defaults; the group's partition and name for sameness groups
}

// The config entry kinds Consul has, and what replication makes of each.
const (
	kindExportedServices = exports.Kind
	kindServiceResolver  = names.KindServiceResolver
	kindServiceRouter    = names.KindServiceRouter
	kindServiceSplitter  = names.KindServiceSplitter
	kindSamenessGroup    = exports.SamenessGroupKind
	kindServiceDefaults  = "service-defaults"
	kindProxyDefaults    = "proxy-defaults"
)

// skippedKinds are Consul's other kinds, with why replication does not depend on each.
var skippedKinds = map[string]string{
	"service-intentions":          "intentions allow or deny traffic; they do not change what is replicated",
	"mesh":                        "mesh-wide settings do not change what is replicated",
	"terminating-gateway":         "the services behind a terminating gateway are connect services; they are read from the catalog (/v1/catalog/gateway-services), not from this entry",
	"ingress-gateway":             "an ingress gateway does not change what is replicated to peers",
	"api-gateway":                 "an API gateway does not change what is replicated to peers",
	"bound-api-gateway":           "an API gateway does not change what is replicated to peers",
	"http-route":                  "an API gateway's routes do not change what is replicated to peers",
	"tcp-route":                   "an API gateway's routes do not change what is replicated to peers",
	"inline-certificate":          "a gateway certificate does not change what is replicated to peers",
	"jwt-provider":                "a JWT provider does not change what is replicated to peers",
	"control-plane-request-limit": "a request limit does not change what is replicated to peers",
}

// LoadConfig reads `consul config read` output (see Config.Add) into a new Config.
func LoadConfig(data []byte) (Config, error) {
	var c Config
	err := c.Add("", data)
	return c, err
}

// Add reads the config entries of data into c: one JSON value, a stream of values (the
// output of several `consul config read` commands) or JSON arrays of them, of any kinds,
// mixed, optionally after a UTF-8 byte-order mark. Entries of the kinds replication reads
// are decoded strictly and validated as their packages do (exports.LoadEntries and
// LoadSamenessGroups; the UnmarshalJSON and Validate methods of chain's entries), and
// service-defaults and proxy-defaults likewise: every field Consul defines is accepted (meshscope uses Protocol and
// Config.protocol), any other is an error with the field it most likely misspells, and so is
// a key given twice. Entries of Consul's other kinds are skipped, each named in a finding
// (EntrySkipped); a kind Consul does not have is an error. An entry given twice (one kind and name,
// in this stream or an earlier one) is an error naming both places.
//
// name, when not "", is put before every problem and every finding's path: the file the
// data came from. Every problem is reported; on error, c is unchanged.
func (c *Config) Add(name string, data []byte) error {
	values, err := strict.ParseJSONStream(bytes.TrimPrefix(data, []byte("\uFEFF")))
	if err != nil {
		return fielderr.In(name, err)
	}
	next := c.clone()
	var errs []error
	for n, v := range values {
		where := fmt.Sprintf("value %d", n+1)
		if list, ok := v.([]any); ok {
			for i, item := range list {
				errs = append(errs, next.add(name, fmt.Sprintf("%s, [%d]", where, i), item))
			}
			continue
		}
		errs = append(errs, next.add(name, where, v))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	*c = next
	return nil
}

// clone returns a copy of c whose slices and maps Add may grow without touching c's.
func (c *Config) clone() Config {
	n := *c
	n.Exports = slices.Clip(c.Exports)
	n.Entries.Resolvers = slices.Clip(c.Entries.Resolvers)
	n.Entries.Routers = slices.Clip(c.Entries.Routers)
	n.Entries.Splitters = slices.Clip(c.Entries.Splitters)
	n.Entries.SamenessGroups = slices.Clip(c.Entries.SamenessGroups)
	n.Entries.Protocols = maps.Clone(c.Entries.Protocols)
	n.Findings = slices.Clip(c.Findings)
	n.seen = maps.Clone(c.seen)
	return n
}

// add decodes one entry, read at where in the file name.
func (c *Config) add(file, where string, x any) error {
	d := &strict.Decoder{Fold: true}
	o, ok := d.Object(x, "")
	if !ok {
		return fielderr.In(file, fielderr.In(where, fmt.Errorf("a config entry must be an object, got %s", strict.Describe(x))))
	}
	var kind, entryName string
	o.String(&kind, "Kind")
	o.String(&entryName, "Name")
	label := fmt.Sprintf("%s (%s)", where, strings.TrimSpace(kind+" "+entryName))
	if kind == "" {
		label = fmt.Sprintf("%s (no Kind: %s)", where, entryName)
		if entryName == "" {
			label = where + " (no Kind)"
		}
	}
	in := func(err error) error { return fielderr.In(file, fielderr.In(label, err)) }
	if err := d.Err(); err != nil {
		return in(err)
	}
	raw, err := json.Marshal(x)
	if err != nil {
		return in(err)
	}
	rule, ok := kindRules[kind]
	switch {
	case kind == "":
		return in(&FieldError{Field: "Kind", Detail: "is required: every entry `consul config read` prints has one"})
	case !ok:
		if f, skipped := skippedFinding(file, label, kind); skipped {
			c.Findings = append(c.Findings, f)
			return nil
		}
		return in(unknownKind(kind))
	}
	e, err := rule.decode(d, o, raw)
	errs := append(d.Errs(), err)
	if err == nil {
		errs = append(errs, rule.validate(&e))
	}
	if err := errors.Join(errs...); err != nil {
		return in(err)
	}
	if prev, dup := c.seen[e.key]; dup {
		return in(&FieldError{Value: entryName, Detail: fmt.Sprintf("a second %s entry for %s; the first is %s", kind, e.key.name.Short(), prev)})
	}
	c.put(&e)
	c.remember(e.key, strings.TrimPrefix(file+": "+label, ": "))
	return nil
}

// remember records where the entry of key was read or written.
func (c *Config) remember(key entryKey, where string) {
	if c.seen == nil {
		c.seen = map[entryKey]string{}
	}
	c.seen[key] = where
}

// put adds the entry e, of a kind replication reads, to c: after the entries of its kind
// (the protocol of its service or the default protocol, for the defaults kinds). It does not
// look for one it replaces.
func (c *Config) put(e *entry) {
	switch e.key.kind {
	case kindServiceResolver:
		c.Entries.Resolvers = append(c.Entries.Resolvers, *e.resolver)
	case kindServiceRouter:
		c.Entries.Routers = append(c.Entries.Routers, *e.router)
	case kindServiceSplitter:
		c.Entries.Splitters = append(c.Entries.Splitters, *e.splitter)
	case kindSamenessGroup:
		c.Entries.SamenessGroups = append(c.Entries.SamenessGroups, *e.group)
	case kindExportedServices:
		c.Exports = append(c.Exports, *e.export)
	case kindServiceDefaults:
		if c.Entries.Protocols == nil {
			c.Entries.Protocols = map[exports.ServiceName]string{}
		}
		c.Entries.Protocols[e.key.name] = e.protocol
	case kindProxyDefaults:
		c.Entries.DefaultProtocol, c.proxyDefaults = e.protocol, true
	}
}

// skippedFinding is the finding naming an entry of one of Consul's kinds replication does
// not read, at label in file; ok is false for a kind Consul does not have.
func skippedFinding(file, label, kind string) (Finding, bool) {
	why, ok := skippedKinds[kind]
	if !ok {
		return Finding{}, false
	}
	path := strings.TrimPrefix(file+": "+label, ": ")
	return report.New(path, EntrySkipped, "not read: %s", why), true
}

// unknownKind is the error for a Kind Consul does not have, with the one it most likely
// misspells.
func unknownKind(kind string) error {
	known := append([]string{kindExportedServices, kindServiceResolver, kindServiceRouter, kindServiceSplitter, kindSamenessGroup, kindServiceDefaults, kindProxyDefaults}, slices.Sorted(maps.Keys(skippedKinds))...)
	hint := ""
	if s := strict.Suggest(kind, known); s != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", s)
	}
	return &FieldError{Field: "Kind", Value: kind, Detail: fmt.Sprintf("%q is not a kind of Consul config entry%s", kind, hint)}
}

// Replace returns the configuration with the entries of proposed in place of c's entries of
// the same kind and name, and c's other entries: what Consul would hold after writing
// proposed. A proposed proxy-defaults entry replaces c's, protocol included. The findings
// are proposed's.
func (c Config) Replace(proposed Config) Config {
	out := Config{Findings: slices.Clone(proposed.Findings), Entries: c.Entries}
	out.Exports = replace(c.Exports, proposed.Exports, func(e exports.ConfigEntry) string { return canonicalPartition(e.Name) })
	out.Entries.Resolvers = replace(c.Entries.Resolvers, proposed.Entries.Resolvers, func(r chain.ServiceResolver) exports.ServiceName { return r.ServiceName() })
	out.Entries.Routers = replace(c.Entries.Routers, proposed.Entries.Routers, func(r chain.ServiceRouter) exports.ServiceName { return r.ServiceName() })
	out.Entries.Splitters = replace(c.Entries.Splitters, proposed.Entries.Splitters, func(s chain.ServiceSplitter) exports.ServiceName { return s.ServiceName() })
	out.Entries.SamenessGroups = replace(c.Entries.SamenessGroups, proposed.Entries.SamenessGroups, func(g exports.SamenessGroup) string { return g.ID() })
	out.Entries.Protocols = make(map[exports.ServiceName]string, len(c.Entries.Protocols)+len(proposed.Entries.Protocols))
	for s, p := range c.Entries.Protocols {
		out.Entries.Protocols[s.Canonical()] = p
	}
	for s, p := range proposed.Entries.Protocols {
		out.Entries.Protocols[s.Canonical()] = p
	}
	out.proxyDefaults = c.proxyDefaults || proposed.proxyDefaults
	if proposed.proxyDefaults {
		out.Entries.DefaultProtocol = proposed.Entries.DefaultProtocol
	}
	return out
}

// canonicalPartition spells a partition canonically.
func canonicalPartition(partition string) string {
	return exports.ServiceName{Partition: partition}.Canonical().Partition
}

// replace returns cur without the values whose key a proposed value has, then the proposed
// values.
func replace[T any, K comparable](cur, proposed []T, key func(T) K) []T {
	drop := make(map[K]bool, len(proposed))
	for _, v := range proposed {
		drop[key(v)] = true
	}
	out := make([]T, 0, len(cur)+len(proposed))
	for _, v := range cur {
		if !drop[key(v)] {
			out = append(out, v)
		}
	}
	return append(out, proposed...)
}
