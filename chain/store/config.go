package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/intentions"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/report"
)

// Config is the config entries a Consul server stores, as `consul config read` prints them:
// the exported-services entries, the discovery-chain entries — service-resolver,
// service-router, service-splitter, service-defaults (each service's Protocol),
// proxy-defaults (its Config.protocol) and sameness-group —, the service-intentions entries
// and the mesh entry's setting a sidecar reads. Findings name the entries of Consul's other
// kinds, which were skipped. The zero Config holds nothing; Add reads into it,
// Apply writes to it.
//
// Add and Apply leave in c a view of a Store, and keep that Store for c's next Add or Apply,
// so that each costs what it reads and writes, not the size of c. The lists and map they leave
// are shared with the copies of c made since: read them; to change c otherwise than by Add and
// Apply, give it new ones (assign a new slice or map; append, which copies) — an element
// changed in place is not seen by the next Apply, which takes c for the Store's view. A copy
// of c keeps what it held whatever c's later writes, and its own Add or Apply reads it anew.
type Config struct {
	Exports []exports.ConfigEntry
	Entries chain.Entries
	// Intentions are the service-intentions entries, as written (package intentions reads
	// them as Consul stores them, normalized or not).
	Intentions []intentions.ConfigEntry
	// Mesh is what the store reads of the mesh entry; nil when there is none.
	Mesh     *Mesh
	Findings []Finding

	proxyDefaults bool   // a proxy-defaults entry was read
	st            *Store // the Store c is a view of, if any (see store)
	gen           uint64 // which view of st c is
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
// does not have is an error. An entry given twice (one kind and name, in data or in c) is an
// error naming both places.
//
// name, when not "", is put before every problem and every finding's path: the file the
// data came from. Every problem is reported; on error, c is unchanged.
func (c *Config) Add(name string, data []byte) error {
	items, err := readItems(data)
	if err != nil {
		return fielderr.In(name, err)
	}
	read := make([]decoded, len(items))
	for i, it := range items {
		read[i] = it.read()
	}
	st, err := c.store()
	if err != nil {
		return err
	}
	if err := st.check(name, read); err != nil {
		if st == c.st {
			c.gen = st.gen.Load() // c is still its view
		}
		return err
	}
	for _, r := range read {
		if r.skip {
			st.skip(r.skipped(name))
			continue
		}
		st.show(r.e, st.set(r.e))
	}
	*c = st.config(true)
	return nil
}

// check reports every problem of the entries read (from the file name) that Add would store:
// their own, and each that is the second of its kind and name, in read or in the Store. The
// entries to store learn where they were read.
func (st *Store) check(file string, read []decoded) error {
	first := map[key]string{}
	var errs []error
	for _, r := range read {
		if r.skip {
			continue
		}
		err := r.err
		if r.e != nil {
			err = errors.Join(err, r.kind.validate(r.e.value))
		}
		if err != nil {
			errs = append(errs, r.in(file, err))
			continue
		}
		at, dup := first[r.e.key]
		if prev := st.live(r.e.key); !dup && prev != nil {
			at, dup = prev.at(), true
		}
		if dup {
			errs = append(errs, r.in(file, &FieldError{Value: r.e.name, Detail: fmt.Sprintf("a second %s entry for %s; the first is %s", r.e.key.kind, r.e.key.name.Short(), at)}))
			continue
		}
		r.e.where = strings.TrimPrefix(file+": "+r.label(), ": ")
		first[r.e.key] = r.e.where
	}
	return errors.Join(errs...)
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

// Compile compiles what c's entries decide together, for a caller that reads a Config
// without a Store: the exported-services entries, their sameness-group consumers resolved
// (exports.CompileGroups), and the chain entries (chain.NewCompiler), whose problems are
// named under "exported-services" and "service-resolver".
func (c Config) Compile() (*exports.Exports, error) {
	x, err := exports.CompileGroups(c.Entries.SamenessGroups, c.Exports...)
	if err != nil {
		return nil, fielderr.In("exported-services", err)
	}
	if _, err := chain.NewCompiler(c.Entries); err != nil {
		return nil, fielderr.In("service-resolver", err)
	}
	return x, nil
}
