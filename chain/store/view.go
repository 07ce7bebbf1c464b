package store

import "slices"

// view is the Config a Store's entries make, kept in step with its writes so that handing it
// out costs no more than the writes: each kind's list in the order first read or written.
// The view's lists are its own (with room to grow); what it hands out are the same lists
// clipped to their length, so that an entry appended later is beyond every list handed out.
// An entry replaced in place, and the Protocols map, are copied first when a list or map
// handed out holds them (shared): a Config handed out keeps what it held.
//
// Three things make one Config.Apply per write cost what the write touches, and each is
// needed: the view (handing out a Config copies nothing), the Config's link to its Store with
// the generation it was handed out at (the next Apply finds the Store instead of reading the
// Config anew; of several copies of one Config, written at once or one after another, one
// claims the Store and the others read their own, so no two write one Store), and the check
// that the Config's lists are still the view's (same, shares: a list or map the caller gave
// the Config since is read anew).
type view struct {
	c      Config
	shared [modelled]bool // the kind's list (or map) is in a Config handed out
	stale  bool           // an entry was deleted: c is rebuilt from the entries when next handed out
}

func (v *view) shareAll() {
	for i := range v.shared {
		v.shared[i] = true
	}
}

// show puts e, just stored in place of prev (nil: none), in the view.
func (st *Store) show(e, prev *entry) {
	v := &st.view
	switch {
	case v.stale:
		return
	case e.deleted:
		v.stale = true
		return
	}
	k := e.kind
	if prev == nil && k.size != nil { // a new entry of a listed kind: after every list handed out
		e.pos = k.size(&v.c)
		k.add(&v.c, e.value)
		return
	}
	if i := k.index(); v.shared[i] {
		k.own(&v.c)
		v.shared[i] = false
	}
	if prev != nil {
		e.pos = prev.pos
	}
	k.put(&v.c, e.pos, e.value)
}

// skip puts the finding f, of an entry of a kind the store does not model, in the view.
func (st *Store) skip(f Finding) {
	st.view.c.Findings = append(st.view.c.Findings, f) // after every list handed out
}

// Config returns the entries stored as a Config: each kind's entries in the order first read
// or written, and the findings of the entries of kinds the store does not model. It is a copy:
// the Store's later writes do not change it. The entries in it share what they point to
// (maps, slices) with the Store's: read them, do not change them.
func (st *Store) Config() Config { return st.config(false) }

// config hands out the view. A linked Config holds the Store, for its next Apply or Add.
func (st *Store) config(link bool) Config {
	v := &st.view
	if v.stale {
		st.rebuild()
	}
	out := v.c.clipped()
	v.shareAll()
	if link {
		out.st, out.gen = st, st.gen.Load()
	}
	return out
}

// rebuild makes the view anew from the entries stored.
func (st *Store) rebuild() {
	c := Config{Findings: st.view.c.Findings}
	var n [len(kinds)]int
	for _, k := range st.order {
		if e := st.live(k); e != nil {
			i := e.kind.index()
			e.pos, n[i] = n[i], n[i]+1
			e.kind.add(&c, e.value)
		}
	}
	st.view = view{c: c}
}

// store returns the Store c is the current view of, claimed for one Apply or Add (a copy of c
// made before is no longer its view, and reads its own), or, when c is not one — made
// otherwise, changed since, or a copy of a view that has moved on — a new Store read from c.
func (c *Config) store() (*Store, error) {
	if st := c.st; st != nil && st.gen.CompareAndSwap(c.gen, c.gen+1) && st.view.is(c) {
		return st, nil
	}
	return New(*c)
}

// is reports whether c is the view as last handed out: every kind's list (map, field) and the
// findings, as handed out.
func (v *view) is(c *Config) bool {
	if v.stale || !same(c.Findings, v.c.Findings) {
		return false
	}
	for _, k := range kinds {
		if !k.shares(c, &v.c) {
			return false
		}
	}
	return true
}

// same reports whether a is b as handed out: the same elements (the same first element;
// two empty lists hold the same), clipped.
func same[T any](a, b []T) bool {
	return len(a) == len(b) && cap(a) == len(a) && (len(a) == 0 || &a[0] == &b[0])
}

// clipped returns c with its lists clipped to their length, so that appending to them copies.
func (c Config) clipped() Config {
	for _, k := range kinds {
		k.clip(&c)
	}
	c.Findings = slices.Clip(c.Findings)
	return c
}
