package store

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/growth"
)

// defaultsWrites returns n service-defaults writes, one per service.
func defaultsWrites(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"Kind":"service-defaults","Name":"s%d","Protocol":"http"}`+"\n", i)
	}
	return []byte(b.String())
}

// serviceWrites returns n writes (n a multiple of 3): for each of n/3 services its
// service-defaults, a resolver with a subset, and a router sending /v1 to that subset; every
// write recompiles one chain, and Consul's server accepts every one.
func serviceWrites(n int) []byte {
	var b strings.Builder
	for i := range n / 3 {
		fmt.Fprintf(&b, `{"Kind":"service-defaults","Name":"s%d","Protocol":"http"}`+"\n", i)
		fmt.Fprintf(&b, `{"Kind":"service-resolver","Name":"s%d","Subsets":{"v1":{}}}`+"\n", i)
		fmt.Fprintf(&b, `{"Kind":"service-router","Name":"s%d","Routes":[{"Match":{"HTTP":{"PathPrefix":"/v1"}},"Destination":{"ServiceSubset":"v1"}}]}`+"\n", i)
	}
	return []byte(b.String())
}

// intentionWrites returns n writes (n a multiple of 4): for each of n/4 services s its
// service-defaults and those of t, an entry giving permissions to s, and a resolver
// redirecting s to t; each write judges the intentions of at most one chain, and Consul's
// server accepts every one.
func intentionWrites(n int) []byte {
	var b strings.Builder
	for i := range n / 4 {
		fmt.Fprintf(&b, `{"Kind":"service-defaults","Name":"t%d","Protocol":"http"}`+"\n", i)
		fmt.Fprintf(&b, `{"Kind":"service-defaults","Name":"s%d","Protocol":"http"}`+"\n", i)
		fmt.Fprintf(&b, `{"Kind":"service-intentions","Name":"s%d","Sources":[{"Name":"web","Permissions":[{"Action":"deny","HTTP":{"PathPrefix":"/admin"}}]},{"Name":"*","Action":"allow"}]}`+"\n", i)
		fmt.Fprintf(&b, `{"Kind":"service-resolver","Name":"s%d","Redirect":{"Service":"t%d"}}`+"\n", i, i)
	}
	return []byte(b.String())
}

// each splits writes, one per line, into one Apply's data each.
func each(writes []byte) [][]byte {
	return bytes.Split(bytes.TrimSpace(writes), []byte("\n"))
}

// applyOnce writes all of writes with one Config.Apply; applyEach with one Config.Apply per
// write; storeEach with one Store.Apply per write. Each fails tb unless every write is
// accepted.
func applyOnce(tb testing.TB, writes []byte) {
	var c Config
	outs, err := c.Apply(writes)
	if err != nil || !outs[len(outs)-1].Accepted {
		tb.Fatal(err, outs[len(outs)-1])
	}
}

func applyEach(tb testing.TB, writes [][]byte) {
	var c Config
	for _, w := range writes {
		if outs, err := c.Apply(w); err != nil || !outs[0].Accepted {
			tb.Fatal(err, outs)
		}
	}
}

func storeEach(tb testing.TB, writes [][]byte) {
	st, err := New(Config{})
	if err != nil {
		tb.Fatal(err)
	}
	for _, w := range writes {
		if outs, err := st.Apply(w); err != nil || !outs[0].Accepted {
			tb.Fatal(err, outs)
		}
	}
}

// TestWritesGrow: n and 4n writes, each accepted, in one Config.Apply, or one Config.Apply or
// Store.Apply each: the second allocates about four times what the first does (each write
// costs what it touches: one chain recompiled, its entries read). (A Config.Apply per write
// copies the Protocols map a copy of the Config may hold, once per call: one allocation each,
// whose bytes grow with the map.)
func TestWritesGrow(t *testing.T) {
	for _, w := range []struct {
		name   string
		writes func(int) []byte
		n      int
	}{{"service-defaults", defaultsWrites, 48}, {"defaults, resolver and router", serviceWrites, 48},
		{"resolvers failing over and redirecting", applyWrites, 48}, {"routers and splitters", applyRoutingWrites, 48},
		{"intentions with permissions", intentionWrites, 48}} {
		for _, apply := range []struct {
			name string
			run  func(data []byte) func()
		}{
			{"one Config.Apply", func(data []byte) func() { return func() { applyOnce(t, data) } }},
			{"a Store.Apply per write", func(data []byte) func() { return func() { storeEach(t, each(data)) } }},
			{"a Config.Apply per write", func(data []byte) func() { return func() { applyEach(t, each(data)) } }},
		} {
			small, _ := growth.Allocated(apply.run(w.writes(w.n)))
			large, _ := growth.Allocated(apply.run(w.writes(4 * w.n)))
			if large > 5*small {
				t.Errorf("%s, %s: %d writes allocate %.1f times what %d do (%.0f, %.0f): want about 4", w.name, apply.name, 4*w.n, large/small, w.n, large, small)
			}
		}
	}
}

// BenchmarkApplyDefaults/{once,config-each,store-each}/{100,400,800}: n service-defaults
// writes in one Config.Apply (once), one Config.Apply per write (config-each: each copies the
// Protocols map the Config it left may share) and one Store.Apply per write (store-each).
func BenchmarkApplyDefaults(b *testing.B) {
	benchmarkWays(b, defaultsWrites, map[string]int{"100": 100, "400": 400, "800": 800})
}

// BenchmarkApplyServices/{once,config-each,store-each}/{1000,4000}: 1,002 and 3,999 writes —
// service-defaults, resolver and router of each service — written each of those ways.
func BenchmarkApplyServices(b *testing.B) {
	benchmarkWays(b, serviceWrites, map[string]int{"1000": 1002, "4000": 3999})
}

// benchmarkWays benchmarks the writes of each size (by its label) written in one Config.Apply,
// one Config.Apply per write and one Store.Apply per write.
func benchmarkWays(b *testing.B, writes func(n int) []byte, sizes map[string]int) {
	for _, way := range []struct {
		name  string
		apply func(testing.TB, [][]byte)
	}{{"once", nil}, {"config-each", applyEach}, {"store-each", storeEach}} {
		for _, label := range slices.SortedFunc(maps.Keys(sizes), func(a, b string) int { return cmp.Compare(sizes[a], sizes[b]) }) {
			data := writes(sizes[label])
			b.Run(way.name+"/"+label, func(b *testing.B) {
				if way.apply == nil {
					benchmarkOnce(b, data)
					return
				}
				benchmarkEach(b, data, way.apply)
			})
		}
	}
}

// BenchmarkApplyIntentions{400,1000,4000}: 400, 1,000 and 4,000 writes of services, their
// resolvers and entries giving them permissions, in one Config.Apply;
// BenchmarkApplyIntentions400Naive the reference's literal write path, which compiles the
// chain of every destination of an intentions entry for every resolver or service-defaults
// write, as Consul's server does.
func BenchmarkApplyIntentions400(b *testing.B)      { benchmarkOnce(b, intentionWrites(400)) }
func BenchmarkApplyIntentions1000(b *testing.B)     { benchmarkOnce(b, intentionWrites(1000)) }
func BenchmarkApplyIntentions4000(b *testing.B)     { benchmarkOnce(b, intentionWrites(4000)) }
func BenchmarkApplyIntentions400Naive(b *testing.B) { benchmarkNaiveData(b, intentionWrites(400)) }

// BenchmarkApplyServices1000Naive is the baseline: the reference's literal write path
// (apply_ref_test.go), which reads every stored entry for every write.
func BenchmarkApplyServices1000Naive(b *testing.B) { benchmarkNaiveData(b, serviceWrites(1002)) }

func benchmarkOnce(b *testing.B, data []byte) {
	b.ReportAllocs()
	for b.Loop() {
		applyOnce(b, data)
	}
}

func benchmarkEach(b *testing.B, data []byte, apply func(testing.TB, [][]byte)) {
	writes := each(data)
	b.ReportAllocs()
	for b.Loop() {
		apply(b, writes)
	}
}

// exportedHTTP are the two writes applyWrites and applyRoutingWrites begin with: every service
// is http (proxy-defaults), and every service of the default namespace is exported to the peer
// east.
const exportedHTTP = `{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"http"}}
{"Kind":"exported-services","Name":"default","Services":[{"Name":"*","Consumers":[{"Peer":"east"}]}]}
`

// applyWrites returns n writes (and two more: proxy-defaults and a "*" export to a peer):
// n/4 chains of three services, a failing over to b, b redirecting to c, c with a subset and
// a service-defaults protocol, all of them http; every write recompiles at most two chains,
// and Consul's server accepts every one.
func applyWrites(n int) []byte {
	var b strings.Builder
	b.WriteString(exportedHTTP)
	for i := 0; i < n/4; i++ {
		fmt.Fprintf(&b, `{"Kind":"service-defaults","Name":"c%d","Protocol":"http"}`+"\n", i)
		fmt.Fprintf(&b, `{"Kind":"service-resolver","Name":"c%d","Subsets":{"v1":{}}}`+"\n", i)
		fmt.Fprintf(&b, `{"Kind":"service-resolver","Name":"b%d","Redirect":{"Service":"c%d"}}`+"\n", i, i)
		fmt.Fprintf(&b, `{"Kind":"service-resolver","Name":"a%d","Failover":{"*":{"Service":"b%d"}}}`+"\n", i, i)
	}
	return []byte(b.String())
}

// applyRoutingWrites returns n writes (and the same two more): n/4 chains of a router r,
// routing /s to service s, whose splitter shares it between two subsets of s's resolver, and
// s's service-defaults; every write recompiles at most two chains, and Consul's server
// accepts every one.
func applyRoutingWrites(n int) []byte {
	var b strings.Builder
	b.WriteString(exportedHTTP)
	for i := 0; i < n/4; i++ {
		fmt.Fprintf(&b, `{"Kind":"service-defaults","Name":"s%d","Protocol":"http"}`+"\n", i)
		fmt.Fprintf(&b, `{"Kind":"service-resolver","Name":"s%d","Subsets":{"v1":{},"v2":{}}}`+"\n", i)
		fmt.Fprintf(&b, `{"Kind":"service-splitter","Name":"s%d","Splits":[{"Weight":50,"ServiceSubset":"v1"},{"Weight":50,"ServiceSubset":"v2"}]}`+"\n", i)
		fmt.Fprintf(&b, `{"Kind":"service-router","Name":"r%d","Routes":[{"Match":{"HTTP":{"PathPrefix":"/s"}},"Destination":{"Service":"s%d"}}]}`+"\n", i, i)
	}
	return []byte(b.String())
}

// naiveApply is the baseline: the reference's literal write path (apply_ref_test.go), which
// reads every stored entry for every write.
func naiveApply(data []byte) int {
	var items []json.RawMessage
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		items = append(items, json.RawMessage(line))
	}
	var ref refStore
	refused := 0
	for _, raw := range items {
		if e, stage := decodeForRef(raw); e == nil || stage != "" {
			refused++
		} else if _, reasons := ref.write(e); len(reasons) > 0 {
			refused++
		}
	}
	return refused
}

func BenchmarkApply500(b *testing.B)  { benchmarkApply(b, 500) }
func BenchmarkApply2000(b *testing.B) { benchmarkApply(b, 2000) }

func BenchmarkApplyRouting500(b *testing.B)  { benchmarkApplyData(b, applyRoutingWrites(500), 500) }
func BenchmarkApplyRouting2000(b *testing.B) { benchmarkApplyData(b, applyRoutingWrites(2000), 2000) }

func benchmarkApply(b *testing.B, n int) { benchmarkApplyData(b, applyWrites(n), n) }

func benchmarkApplyData(b *testing.B, data []byte, n int) {
	b.ReportAllocs()
	for b.Loop() {
		var c Config
		outs, err := c.Apply(data)
		if err != nil || len(outs) != n+2 || !outs[n+1].Accepted {
			b.Fatal(err, len(outs))
		}
	}
}

func BenchmarkApply500Naive(b *testing.B)  { benchmarkApplyNaive(b, 500) }
func BenchmarkApply2000Naive(b *testing.B) { benchmarkApplyNaive(b, 2000) }

func BenchmarkApplyRouting500Naive(b *testing.B) { benchmarkNaiveData(b, applyRoutingWrites(500)) }

func benchmarkApplyNaive(b *testing.B, n int) { benchmarkNaiveData(b, applyWrites(n)) }

func benchmarkNaiveData(b *testing.B, data []byte) {
	b.ReportAllocs()
	for b.Loop() {
		if refused := naiveApply(data); refused != 0 {
			b.Fatal(refused)
		}
	}
}
