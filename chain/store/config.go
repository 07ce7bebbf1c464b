package store

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/report"
)

// Config is the config entries a Consul server stores, as `consul config read` prints them:
// the exported-services entries, and the discovery-chain entries — service-resolver,
// service-router, service-splitter, service-defaults (each service's Protocol),
// proxy-defaults (its Config.protocol) and sameness-group. Findings name the entries of
// Consul's other kinds, which were skipped. The zero Config holds nothing; Add reads into it,
// Apply writes to it.
type Config struct {
	Exports  []exports.ConfigEntry
	Entries  chain.Entries
	Findings []Finding

	seen          map[key]string // where each entry was read, for repeats
	proxyDefaults bool           // a proxy-defaults entry was read
}

// Load reads `consul config read` output (see Config.Add) into a new Config.
func Load(data []byte) (Config, error) {
	var c Config
	err := c.Add("", data)
	return c, err
}

// Add reads the config entries of data into c: one JSON value, a stream of values (the
// output of several `consul config read` commands) or JSON arrays of them, of any kinds,
// mixed, optionally after a UTF-8 byte-order mark. Entries of the kinds the store models are
// decoded strictly and validated as their packages do (the UnmarshalJSON and Validate methods
// of exports' and chain's entries), and service-defaults and proxy-defaults likewise: every
// field Consul defines is accepted (meshscope uses Protocol and Config.protocol), any other
// is an error with the field it most likely misspells, and so is a key given twice. Entries
// of Consul's other kinds are skipped, each named in a finding (EntrySkipped); a kind Consul
// does not have is an error. An entry given twice (one kind and name, in this stream or an
// earlier one) is an error naming both places.
//
// name, when not "", is put before every problem and every finding's path: the file the
// data came from. Every problem is reported; on error, c is unchanged.
func (c *Config) Add(name string, data []byte) error {
	items, err := readItems(data)
	if err != nil {
		return fielderr.In(name, err)
	}
	next := c.clone()
	var errs []error
	for _, it := range items {
		errs = append(errs, next.add(name, it.read()))
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

// add adds the entry r, read from the file name, to c.
func (c *Config) add(file string, r decoded) error {
	if r.skip {
		c.Findings = append(c.Findings, r.skipped(file))
		return nil
	}
	err := r.err
	if r.e != nil {
		err = errors.Join(err, r.kind.validate(r.e.value))
	}
	if err != nil {
		return r.in(file, err)
	}
	if prev, dup := c.seen[r.e.key]; dup {
		return r.in(file, &FieldError{Value: r.e.name, Detail: fmt.Sprintf("a second %s entry for %s; the first is %s", r.e.key.kind, r.e.key.name.Short(), prev)})
	}
	r.kind.add(c, r.e.value)
	c.remember(r.e.key, strings.TrimPrefix(file+": "+r.label(), ": "))
	return nil
}

// remember records where the entry of k was read or written.
func (c *Config) remember(k key, where string) {
	if c.seen == nil {
		c.seen = map[key]string{}
	}
	c.seen[k] = where
}

// Replace returns the configuration with the entries of proposed in place of c's entries of
// the same kind and name, and c's other entries: what Consul would hold after writing
// proposed. A proposed proxy-defaults entry replaces c's, protocol included. The findings
// are proposed's.
func (c Config) Replace(proposed Config) Config {
	out := Config{Findings: slices.Clone(proposed.Findings)}
	for _, k := range kinds {
		next := k.values(&proposed)
		drop := make(map[key]bool, len(next))
		for _, v := range next {
			drop[newEntry(k, v).key] = true
		}
		for _, v := range k.values(&c) {
			if !drop[newEntry(k, v).key] {
				k.add(&out, v)
			}
		}
		for _, v := range next {
			k.add(&out, v)
		}
	}
	return out
}

// skipped is the finding naming the entry r (of the file name), of one of Consul's kinds the
// store does not model.
func (r decoded) skipped(file string) Finding {
	path := strings.TrimPrefix(file+": "+r.label(), ": ")
	return report.New(path, EntrySkipped, "not read: %s", skippedKinds[r.head.Kind])
}
