package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/strict"
)

// refStore is the slow, literal reading of a live server's write path that Apply is checked
// against: the entries in a list, replaced in place; for each write, the chains to recompile
// found by reading every stored resolver, and each chain compiled from every stored entry
// (package chain picks from them what Consul's server reads), without an index.
type refStore struct{ list []*entry }

func (r *refStore) get(k key) (int, *entry) {
	for i, e := range r.list {
		if e.key == k {
			return i, e
		}
	}
	return -1, nil
}

// put stores e and returns a function that undoes it.
func (r *refStore) put(e *entry) (undo func()) {
	i, prev := r.get(e.key)
	if i < 0 {
		r.list = append(r.list, e)
		return func() { r.list = r.list[:len(r.list)-1] }
	}
	r.list[i] = e
	return func() { r.list[i] = prev }
}

func (r *refStore) all() chain.Entries { return r.config().Entries }

func (r *refStore) config() Config {
	var c Config
	for _, e := range r.list {
		e.kind.add(&c, e.value)
	}
	return c
}

func (r *refStore) compile(s exports.ServiceName) (*chain.Chain, error) {
	return chain.Compile(request(s, "dc1", "ref.consul"), r.all())
}

// namesService reports whether the resolver res redirects or fails over to the local service s
// (not res's own), as Consul's server links entries.
func namesService(res *chain.ServiceResolver, s exports.ServiceName) bool {
	or := func(vs ...string) string {
		for _, v := range vs {
			if v != "" {
				return v
			}
		}
		return ""
	}
	is := func(p, ns, name string) bool {
		t := exports.ServiceName{Partition: p, Namespace: ns, Name: name}.Canonical()
		return t == s && t != res.ServiceName()
	}
	if rd := res.Redirect; rd != nil && is(or(rd.Partition, res.Partition), or(rd.Namespace, res.Namespace), or(rd.Service, res.Name)) {
		return true
	}
	for _, f := range res.Failover {
		if len(f.Targets) == 0 && is(res.Partition, or(f.Namespace, res.Namespace), or(f.Service, res.Name)) {
			return true
		}
		for _, t := range f.Targets {
			if t.Peer == "" && is(or(t.Partition, res.Partition), or(t.Namespace, f.Namespace, res.Namespace), or(t.Service, res.Name)) {
				return true
			}
		}
	}
	return false
}

// namesByRouting reports whether the router or splitter o sends requests to the local service
// s (not its own): a route's destination, a split's service.
func namesByRouting(o *entry, s exports.ServiceName) bool {
	is := func(p, ns, name string) bool {
		t := exports.ServiceName{Partition: p, Namespace: ns, Name: name}.Canonical()
		return t == s && t != o.key.name
	}
	or := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	if rt := o.router(); rt != nil {
		for _, route := range rt.Routes {
			if d := route.Destination; d != nil && is(or(d.Partition, rt.Partition), or(d.Namespace, rt.Namespace), or(d.Service, rt.Name)) {
				return true
			}
		}
	}
	if sp := o.splitter(); sp != nil {
		for _, split := range sp.Splits {
			if is(or(split.Partition, sp.Partition), or(split.Namespace, sp.Namespace), or(split.Service, sp.Name)) {
				return true
			}
		}
	}
	return false
}

// hasChain reports whether s has a resolver, router or splitter entry.
func (r *refStore) hasChain(s exports.ServiceName) bool {
	for _, kind := range []string{kindServiceResolver, kindServiceRouter, kindServiceSplitter} {
		if _, e := r.get(key{kind, s}); e != nil {
			return true
		}
	}
	return false
}

// chainEntry reports whether o is a resolver, router or splitter entry.
func chainEntry(o *entry) bool {
	return o.resolver() != nil || o.router() != nil || o.splitter() != nil
}

// exportedToPeer reads every rule of s's partition.
func (r *refStore) exportedToPeer(s exports.ServiceName) bool {
	_, x := r.get(key{kindExportedServices, exports.ServiceName{Partition: s.Partition}.Canonical()})
	if x == nil {
		return false
	}
	for _, rule := range x.export().Services {
		toPeer := false
		for _, c := range rule.Consumers {
			if c.Peer != "" {
				toPeer = true
			}
			if _, g := r.get(key{kindSamenessGroup, exports.ServiceName{Partition: s.Partition, Name: c.SamenessGroup}.Canonical()}); c.SamenessGroup != "" && g != nil {
				for _, m := range g.group().Members {
					toPeer = toPeer || m.Peer != ""
				}
			}
		}
		ns := rule.Namespace == exports.Wildcard || exports.ServiceName{Namespace: rule.Namespace}.Canonical().Namespace == s.Namespace
		name := rule.Name == s.Name || (rule.Name == exports.Wildcard && r.hasChain(s))
		if toPeer && ns && name {
			return true
		}
	}
	return false
}

// write judges e and stores it unless refused, and says at which stage.
func (r *refStore) write(e *entry) (WriteStage, []string) {
	var chains []exports.ServiceName
	switch e.key.kind {
	case kindServiceResolver, kindServiceDefaults, kindServiceRouter, kindServiceSplitter:
		chains = append(chains, e.key.name)
		for _, o := range r.list {
			if o.resolver() != nil && namesService(o.resolver(), e.key.name) || namesByRouting(o, e.key.name) {
				chains = append(chains, o.key.name)
			}
		}
	case kindProxyDefaults:
		for _, o := range r.list {
			if chainEntry(o) {
				chains = append(chains, o.key.name)
			}
		}
	case kindServiceIntentions:
		if !e.deleted && e.name != "*" {
			chains = append(chains, e.key.name)
		}
	case kindSamenessGroup:
		for _, o := range r.list {
			if o.resolver() != nil && o.key.name.Partition == e.key.name.Partition {
				chains = append(chains, o.key.name)
			}
		}
	}
	if e.kind.rechecks { // Consul compiles the chain of every intentions entry's destination
		for _, o := range r.list {
			if o.intentions() != nil && o.name != "*" {
				chains = append(chains, o.key.name)
			}
		}
	}
	slices.SortFunc(chains, exports.ServiceName.Compare)
	chains = slices.Compact(chains)
	undo := r.put(e)
	protocols := map[exports.ServiceName]string{}
	var reasons []string
	switch e.key.kind { // the server's own checks, before any chain
	case kindSamenessGroup:
		var groups []exports.SamenessGroup
		for _, o := range r.list {
			if o.group() != nil && o.key.name.Partition == e.key.name.Partition {
				groups = append(groups, *o.group())
			}
		}
		for _, err := range fielderr.Split(exports.ValidateSamenessGroups(groups)) {
			reasons = append(reasons, err.Error())
		}
	case kindExportedServices:
		var names []exports.ServiceName
		for _, o := range r.list {
			if chainEntry(o) && !slices.Contains(names, o.key.name) {
				names = append(names, o.key.name)
			}
		}
		for _, o := range names {
			if o.Partition == e.key.name.Partition && r.exportedToPeer(o) {
				if c, err := r.compile(o); err == nil && c.CheckPeerExport() != nil {
					reasons = append(reasons, prefixed("chain "+o.String()+": ", consulWords(c.CheckPeerExport()))...)
				}
			}
		}
	}
	if len(reasons) > 0 {
		chains = nil
	}
	stage := StageStore
	for _, s := range chains {
		at := "chain " + s.String() + ": "
		c, err := r.compile(s)
		if err != nil {
			reasons = append(reasons, prefixed(at, consulWords(err))...)
			continue
		}
		if i := slices.IndexFunc(c.Findings(), func(f Finding) bool { return f.Code == chain.HeaderMergePanics }); i >= 0 {
			reasons = append(reasons, at+"Consul 1.16.0's server panics on this write (assignment to entry in nil map) and does not store it: "+c.Findings()[i].Message)
			stage = StagePanic
			continue
		}
		protocols[s] = c.Protocol
		if !r.exportedToPeer(s) {
			continue
		}
		if err := c.CheckPeerExport(); err != nil {
			reasons = append(reasons, prefixed(at, consulWords(err))...)
			continue
		}
		if chain.IsHTTPLike(c.Protocol) {
			continue
		}
		undo()
		before, err := r.compile(s)
		undo = r.put(e)
		if err != nil {
			reasons = append(reasons, at+fmt.Sprintf("error compiling current discovery chain for %q: %s", s.Short(), errors.Join(fielderr.Split(err)...)))
			continue
		}
		for _, id := range nonFailoverTargets(c) {
			if !nonFailoverIdentities(before)[identityOf(c.Targets[id])] {
				reasons = append(reasons, at+fmt.Sprintf("peer exported service %q uses protocol=%q and cannot introduce new discovery chain targets like %q", s.Short(), c.Protocol, id))
			}
		}
	}
	if stage != StagePanic {
		reasons = append(reasons, r.l7(e, protocols)...)
	}
	if len(reasons) > 0 {
		undo()
	}
	return stage, reasons
}

// l7 is Consul's literal check of the intentions a write judges: the written entry; or, for a
// write that rechecks them, the entry of the written entry's name, then every stored entry
// by name.
func (r *refStore) l7(e *entry, protocols map[exports.ServiceName]string) []string {
	var check []*entry
	switch {
	case e.intentions() != nil:
		check = append(check, e)
	case e.kind.rechecks:
		if _, own := r.get(key{kindServiceIntentions, e.key.name}); own != nil {
			check = append(check, own)
		}
		var all []*entry
		for _, o := range r.list {
			if o.intentions() != nil && o.key.name != e.key.name {
				all = append(all, o)
			}
		}
		slices.SortFunc(all, func(a, b *entry) int { return strings.Compare(strings.ToLower(a.name), strings.ToLower(b.name)) })
		check = append(check, all...)
	}
	var out []string
	for _, o := range check {
		p, ok := protocols[o.key.name]
		if x := o.intentions(); ok && x.RequiresHTTP() && !chain.IsHTTPLike(p) {
			prefix := "service-intentions " + o.name + ": "
			if o == e {
				prefix = ""
			}
			out = append(out, prefix+fmt.Sprintf("service %q has protocol %q, which is incompatible with L7 intentions permissions", o.name, p))
		}
	}
	return out
}

// decodeForRef decodes and validates one entry as Apply does, or says at which stage it is
// refused.
func decodeForRef(raw []byte) (*entry, WriteStage) {
	x, err := strict.ParseJSON(raw)
	if err != nil {
		panic(err)
	}
	r := item{"", x}.read()
	if r.err != nil {
		return nil, StageDecode
	}
	if r.kind.validate(r.e.value) != nil {
		return nil, StageValidate
	}
	return r.e, ""
}

// randomWrites returns n config entries of every kind the write path models, over a few
// services, with redirects, failover, subsets, protocols, exports to peers and partitions,
// and sameness groups: enough for writes to break chains and to be refused for every reason.
func randomWrites(r *rand.Rand, n int) []json.RawMessage {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	svc := func() string { return pick("a", "b", "c", "d") }
	var out []json.RawMessage
	for range n {
		var v map[string]any
		switch r.IntN(18) {
		case 0, 1, 2, 3:
			v = map[string]any{"Kind": "service-resolver", "Name": svc()}
			if r.IntN(3) == 0 {
				v["Subsets"] = map[string]any{"v1": map[string]any{}, "v2": map[string]any{"OnlyPassing": true}}
			}
			switch r.IntN(5) {
			case 0:
				rd := map[string]any{"Service": svc()}
				if r.IntN(3) == 0 {
					rd["ServiceSubset"] = pick("v1", "v2")
				}
				if r.IntN(6) == 0 {
					rd = map[string]any{"Datacenter": "dc2"}
				}
				if r.IntN(8) == 0 {
					rd = map[string]any{"Service": svc(), "Peer": "east"}
				}
				v["Redirect"] = rd
			case 1:
				v["Failover"] = map[string]any{"*": map[string]any{"Service": svc()}}
			case 2:
				t := []any{map[string]any{"Service": svc()}, map[string]any{"Service": svc(), "Peer": "east"}}
				if r.IntN(4) == 0 {
					t = append(t, map[string]any{"Datacenter": "dc3"})
				}
				v["Failover"] = map[string]any{"*": map[string]any{"Targets": t}}
			case 3:
				v["Failover"] = map[string]any{"*": map[string]any{"SamenessGroup": pick("g", "h")}}
			}
		case 4, 5:
			v = map[string]any{"Kind": "service-defaults", "Name": svc(), "Protocol": pick("tcp", "http", "grpc", "")}
		case 6:
			v = map[string]any{"Kind": "proxy-defaults", "Name": "global", "Config": map[string]any{"protocol": pick("tcp", "http")}}
		case 7, 8:
			var rules []any
			for _, name := range []string{svc(), pick("*", svc())} {
				rules = append(rules, map[string]any{"Name": name, "Consumers": []any{map[string]any{pick("Peer", "Partition", "SamenessGroup"): pick("east", "ap1", "g")}}})
			}
			v = map[string]any{"Kind": "exported-services", "Name": "default", "Services": rules}
		case 9:
			members := []any{map[string]any{"Partition": "ap1"}, map[string]any{"Peer": pick("east", "west")}}
			v = map[string]any{"Kind": "sameness-group", "Name": pick("g", "h"), "Members": members[:1+r.IntN(2)]}
		case 10, 11:
			var routes []any
			for range r.IntN(3) {
				d := map[string]any{"Service": svc()}
				if r.IntN(4) == 0 {
					d["ServiceSubset"] = pick("v1", "v2")
				}
				routes = append(routes, map[string]any{"Match": map[string]any{"HTTP": map[string]any{"PathPrefix": pick("/a", "/b")}}, "Destination": d})
			}
			v = map[string]any{"Kind": "service-router", "Name": svc(), "Routes": routes}
		case 12, 13:
			headers := func() any {
				return []any{nil, map[string]any{"Add": map[string]any{"x": "1"}}, map[string]any{"Remove": []any{"y"}}, map[string]any{"Set": map[string]any{"z": "2"}}}[r.IntN(4)]
			}
			split := func(w float64) map[string]any {
				s := map[string]any{"Weight": w, "Service": svc()}
				if h := headers(); h != nil {
					s["RequestHeaders"] = h
				}
				return s
			}
			splits := []any{split(100)}
			if r.IntN(2) == 0 {
				splits = []any{split(50), split(50)}
			}
			v = map[string]any{"Kind": "service-splitter", "Name": svc(), "Splits": splits}
		case 14, 15, 16:
			source := func(name string) map[string]any {
				if r.IntN(2) == 0 {
					return map[string]any{"Name": name, "Action": pick("allow", "deny")}
				}
				return map[string]any{"Name": name, "Permissions": []any{map[string]any{"Action": "deny", "HTTP": map[string]any{"PathPrefix": pick("/a", "/b")}}}}
			}
			sources := []any{source("web")}
			if r.IntN(2) == 0 {
				sources = append(sources, source("*"))
			}
			v = map[string]any{"Kind": "service-intentions", "Name": pick("a", "b", "c", "d", "*"), "Sources": sources}
		case 17:
			v = map[string]any{"Kind": "mesh", "HTTP": map[string]any{"SanitizeXForwardedClientCert": r.IntN(2) == 0}}
		}
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	return out
}

// randomData returns 4 to 19 random writes, and the same as one JSON array.
func randomData(t *testing.T, r *rand.Rand) ([]json.RawMessage, []byte) {
	writes := randomWrites(r, 4+r.IntN(16))
	all, err := json.Marshal(writes)
	require.NoError(t, err)
	return writes, all
}

// addRandomSeeds adds to f four arrays of ten random writes, from seed.
func addRandomSeeds(f *testing.F, seed uint64) {
	r := rand.New(rand.NewPCG(seed, seed+1))
	for range 4 {
		b, err := json.Marshal(randomWrites(r, 10))
		require.NoError(f, err)
		f.Add(b)
	}
}

// TestApplyAgainstReference: on random writes, Apply gives exactly the reference's outcomes
// and stores what it stores.
func TestApplyAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 41))
	refused := map[WriteStage]int{}
	l7Refused := map[bool]int{}
	for range longtest.N(300, 3000) {
		writes, all := randomData(t, r)
		var c Config
		outs, err := c.Apply(all)
		require.NoError(t, err)
		require.Len(t, outs, len(writes))
		var ref refStore
		for i, w := range writes {
			e, stage := decodeForRef(w)
			var reasons []string
			if e != nil {
				var at WriteStage
				if at, reasons = ref.write(e); len(reasons) > 0 {
					stage = at
				}
			}
			got := outs[i]
			require.Equal(t, stage == "", got.Accepted, "write %d of %s: %s", i, all, got)
			require.Equal(t, stage, got.Stage, "write %d of %s", i, all)
			if stage == StageStore || stage == StagePanic {
				require.Equal(t, reasons, got.Reasons, "write %d of %s", i, all)
			}
			refused[stage]++
			if l7 := strings.Join(got.Reasons, "\n"); strings.Contains(l7, "incompatible with L7 intentions") {
				l7Refused[got.Kind == kindServiceIntentions]++
			}
		}
		want := ref.config()
		require.Equal(t, want.Entries, c.Entries, "%s", all)
		require.Equal(t, want.Exports, c.Exports, "%s", all)
		require.Equal(t, want.Intentions, c.Intentions, "%s", all)
		require.Equal(t, want.Mesh, c.Mesh, "%s", all)
	}
	for _, stage := range []WriteStage{"", StageValidate, StageStore, StagePanic} {
		require.NotZero(t, refused[stage], "the random writes reach stage %q", stage)
	}
	require.NotZero(t, l7Refused[true], "intentions refused for their destination's protocol")
	require.NotZero(t, l7Refused[false], "writes refused for the intentions of a chain they change")
	t.Logf("writes: %v; refused for L7 intentions: %d intentions writes, %d others", refused, l7Refused[true], l7Refused[false])
}
