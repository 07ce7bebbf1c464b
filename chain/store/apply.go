package store

import (
	"errors"
	"fmt"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// WriteStage is where Consul's server refuses a write, in WriteOutcome.Stage.
type WriteStage string

// The stages of a write, in the order the server takes them.
const (
	// StageDecode: the entry does not decode (an unknown field, a wrong type, a kind Consul
	// does not have); worded as meshscope's strict reader words it.
	StageDecode WriteStage = "decode"
	// StageValidate: the entry alone is invalid (the config entry's own validation).
	StageValidate WriteStage = "validate"
	// StageStore: storing the entry would break a chain it recompiles, or the peer-export
	// safety of an exported service.
	StageStore WriteStage = "store"
	// StagePanic: compiling a chain the write recompiles crashes Consul 1.16.0's server
	// (chain.HeaderMergePanics); the write is not stored.
	StagePanic WriteStage = "panic"
)

// WriteOutcome is how Consul's server answers one write of a config entry.
type WriteOutcome struct {
	// Kind, Name, Namespace and Partition are the entry's, as written.
	Kind      string `json:"Kind"`
	Name      string `json:"Name"`
	Namespace string `json:"Namespace,omitempty"`
	Partition string `json:"Partition,omitempty"`
	// Delete is set for the deletion of the entry (a dry run's): Consul's server judges a
	// deletion as it judges a write.
	Delete bool `json:"Delete,omitempty"`
	// Accepted is whether the server stores it.
	Accepted bool `json:"Accepted"`
	// Stage is where a refused write was refused; "" when accepted.
	Stage WriteStage `json:"Stage,omitempty"`
	// Reasons say why it is refused, in Consul's words: every problem the stage found; at
	// StageStore, every chain the write breaks, each named ("chain default/default/web: ")
	// before its error.
	Reasons []string `json:"Reasons,omitempty"`
}

// String renders the outcome on one line: "service-resolver default/default/web: accepted",
// or "refused (store): " and the reasons.
func (o WriteOutcome) String() string {
	var b strings.Builder
	b.WriteString(o.Entry())
	if o.Accepted {
		b.WriteString(": accepted")
		return b.String()
	}
	fmt.Fprintf(&b, ": refused (%s): %s", o.Stage, strings.Join(o.Reasons, "; "))
	return b.String()
}

// Entry names the entry written: its kind and name, with its namespace and partition when it
// has them, and whether the write deletes it — "service-resolver ap1/ns/web (deleted)".
func (o WriteOutcome) Entry() string {
	name := strings.TrimSpace(o.Kind + " " + o.entryName()) // a mesh entry has no name
	if o.Delete {
		return name + " (deleted)"
	}
	return name
}

// entryName is the entry's name with its namespace and partition, when it has them.
func (o WriteOutcome) entryName() string {
	if o.Namespace == "" && o.Partition == "" {
		return o.Name
	}
	return strings.Trim(o.Partition+"/"+o.Namespace+"/"+o.Name, "/")
}

// Apply writes each config entry of data to c, in order, as a live Consul server takes a
// write — data is what `consul config read` prints: one entry, a stream of entries or JSON
// arrays of them, of any kinds. Each entry is decoded strictly (StageDecode), validated
// (StageValidate), and then refused when storing it would break a chain it recompiles or
// the peer-export safety of an exported service (StageStore):
//
//   - a service-resolver, service-router, service-splitter or service-defaults entry of
//     service S recompiles S's chain and that of every resolver, router and splitter that
//     names S (one level: a write two hops away from a chain is not judged against it, and
//     may break it, as on Consul's server);
//   - proxy-defaults recompiles the chain of every service with a resolver, router or
//     splitter;
//   - a sameness-group the chain of every service with a resolver in its partition, and is
//     refused when it shares a member with another group of its partition;
//   - an exported-services entry checks that every service it exports to a peer (under a
//     "*" rule, the services of the namespace with a resolver, router or splitter) has a
//     chain safe to export;
//   - a service-intentions entry recompiles its destination's chain, and is refused when it
//     gives permissions to a chain that is not HTTP-like (intentions.ProtocolError); a
//     service-resolver, service-router, service-splitter, service-defaults or proxy-defaults
//     write (or deletion) also recompiles the chain of every intentions destination it
//     changes, and is refused, in the same words, when an entry giving permissions — the one
//     of the written entry's name first, then the others by name — would name a chain that
//     is not HTTP-like;
//   - a mesh entry is judged alone.
//
// Each recompiled chain must compile; one exported to a peer (by the union of the rules
// naming a peer, as Consul's server reads them at write time) must be safe to export
// (chain.Chain.CheckPeerExport) and, when its protocol is not HTTP-like, gain no target
// outside every failover list whose identity it did not have. The chains are compiled as the
// server compiles them: from the entries it reads for each, in datacenter dc1. Where a write
// breaks several chains, every one is a reason, each naming its chain; Consul names one of
// them, whichever its map order gives first. A write whose recompiled chain flattens nested
// splitters whose header changes merge into a nil map crashes Consul 1.16.0's server
// (chain.HeaderMergePanics): it is refused at StagePanic, its reason saying so, and not
// stored — meshscope does not panic.
//
// An accepted entry replaces the stored one of its kind and name (Config.Add refuses a
// second one instead); a refused entry changes nothing. An entry of a kind Consul has but
// the write path does not model (the gateways' kinds, jwt-provider, …) is accepted
// unjudged and named in c.Findings (EntrySkipped), as Add names it. c is changed in place:
// its slices and maps are replaced, not written into, so a copy of c made before Apply keeps
// what it held. Apply returns one outcome per entry, in order; the error is for data that is
// not config entries at all (not JSON, an element that is not an object, an entry without a
// Kind) or a c that holds an entry twice, and leaves c as it was.
//
// Each write costs what it touches: Apply writes to the Store c is a view of (see Config), or
// to a new one read from c when c is not one; so replaying writes one Apply at a time costs
// what the writes touch.
func (c *Config) Apply(data []byte) ([]WriteOutcome, error) {
	items, err := readWrites(data)
	if err != nil {
		return nil, err
	}
	st, err := c.store()
	if err != nil {
		return nil, err
	}
	out := st.apply(items)
	*c = st.config(true)
	return out, nil
}

// Apply writes each config entry of data to the Store, in order, as Config.Apply writes them
// to a Config, and returns one outcome per entry; each write costs what it touches (the
// chains it recompiles), not the size of the Store. The error is for data that is not config
// entries at all, and leaves the Store as it was.
func (st *Store) Apply(data []byte) ([]WriteOutcome, error) {
	items, err := readWrites(data)
	if err != nil {
		return nil, err
	}
	return st.apply(items), nil
}

// readWrites reads the items of data, each of which must be an object with a Kind: every
// problem is reported, joined.
func readWrites(data []byte) ([]decoded, error) {
	items, err := readItems(data)
	if err != nil {
		return nil, err
	}
	out := make([]decoded, len(items))
	var errs []error
	for i, it := range items {
		out[i] = it.read()
		if r := out[i]; !r.object || r.head.Kind == "" {
			errs = append(errs, fielderr.In(r.where, r.err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// apply takes the writes of entries, in order: one outcome each. An entry stored is
// remembered as written by an Apply (for Config.Add's message on a repeat); one of a kind the
// store does not model adds its finding.
func (st *Store) apply(entries []decoded) []WriteOutcome {
	out := make([]WriteOutcome, len(entries))
	for i, r := range entries {
		out[i] = st.take(r)
		if out[i].Accepted && r.e != nil {
			r.e.where = r.where + " of an Apply"
		}
	}
	return out
}

// take takes the write of the entry r: its outcome.
func (st *Store) take(r decoded) WriteOutcome {
	out := WriteOutcome{Kind: r.head.Kind, Name: r.head.Name, Namespace: r.head.Namespace, Partition: r.head.Partition}
	refuse := func(stage WriteStage, err error) WriteOutcome {
		out.Stage = stage
		for _, err := range fielderr.Split(err) {
			out.Reasons = append(out.Reasons, err.Error())
		}
		if len(out.Reasons) == 0 { // (the stages always say why)
			out.Reasons = []string{"refused"}
		}
		return out
	}
	switch {
	case r.skip:
		st.skip(r.skipped(""))
		out.Accepted = true
		return out
	case r.err != nil:
		return refuse(StageDecode, r.err)
	}
	if err := r.kind.validate(r.e.value); err != nil {
		return refuse(StageValidate, err)
	}
	if stage, reasons := st.write(r.e); len(reasons) > 0 {
		out.Stage, out.Reasons = stage, reasons
		return out
	}
	out.Accepted = true
	return out
}
