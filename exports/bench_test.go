package exports

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/meshscope/meshscope/internal/growth"
)

// benchEntry has n rules: exact rules for services svc-i spread over 100 namespaces, a "*"
// rule in every namespace and a "*"/"*" rule.
func benchEntry(n int) ConfigEntry {
	e := ConfigEntry{Name: "default"}
	for i := range n {
		e.Services = append(e.Services, Service{Namespace: fmt.Sprintf("ns%d", i%100), Name: fmt.Sprintf("svc-%d", i), Consumers: peers(fmt.Sprintf("peer%d", i%7))})
	}
	for i := range 100 {
		e.Services = append(e.Services, Service{Namespace: fmt.Sprintf("ns%d", i), Name: "*", Consumers: peers("wild")})
	}
	e.Services = append(e.Services, Service{Namespace: "*", Name: "*", Consumers: peers("all")})
	return e
}

var matchSink Match

func BenchmarkMatch10000Rules(b *testing.B) {
	x := mustCompile(b, benchEntry(10000))
	services := []ServiceName{{Namespace: "ns77", Name: "svc-9977"}, {Namespace: "ns5", Name: "other"}, {Namespace: "elsewhere", Name: "x"}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		matchSink, _ = x.Match(services[i%len(services)])
		i++
	}
}

// BenchmarkMatch10000RulesLinearScan is the baseline: scan every rule and keep the most exact.
func BenchmarkMatch10000RulesLinearScan(b *testing.B) {
	entries := []ConfigEntry{benchEntry(10000)}
	services := []ServiceName{{Namespace: "ns77", Name: "svc-9977"}, {Namespace: "ns5", Name: "other"}, {Namespace: "elsewhere", Name: "x"}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		cs, p, _ := refMatch(entries, services[i%len(services)])
		matchSink = Match{Precedence: p, Consumers: cs}
		i++
	}
}

func BenchmarkForPeer100000Services(b *testing.B) {
	x := mustCompile(b, benchEntry(10000))
	catalog := make([]ServiceName, 100000)
	for i := range catalog {
		catalog[i] = ServiceName{Namespace: fmt.Sprintf("ns%d", i%150), Name: fmt.Sprintf("svc-%d", i)}
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = x.ForPeer("peer3", catalog)
	}
}

// consumersEntry has one rule exporting db to n peers.
func consumersEntry(n int) ConfigEntry {
	cs := make([]Consumer, n)
	for i := range cs {
		cs[i] = Consumer{Peer: fmt.Sprintf("peer%d", i)}
	}
	return ConfigEntry{Name: "default", Services: []Service{{Name: "db", Consumers: cs}}}
}

func benchmarkConsumers(b *testing.B, n int, naive bool) {
	e := consumersEntry(n)
	b.ReportAllocs()
	for b.Loop() {
		if naive {
			// The baseline: what Compile and Validate did per consumer, a scan of those
			// before it.
			var seen []string
			for _, c := range e.Services[0].Consumers {
				if !slices.Contains(seen, c.Peer) {
					seen = append(seen, c.Peer)
				}
			}
			continue
		}
		if _, err := Compile(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileConsumers: one rule with n peer consumers.
func BenchmarkCompileConsumers1000(b *testing.B)      { benchmarkConsumers(b, 1000, false) }
func BenchmarkCompileConsumers4000(b *testing.B)      { benchmarkConsumers(b, 4000, false) }
func BenchmarkCompileConsumers1000Naive(b *testing.B) { benchmarkConsumers(b, 1000, true) }
func BenchmarkCompileConsumers4000Naive(b *testing.B) { benchmarkConsumers(b, 4000, true) }

func benchmarkDiffConsumers(b *testing.B, n int) {
	before := mustCompile(b, consumersEntry(n))
	e := consumersEntry(n)
	e.Services[0].Consumers = e.Services[0].Consumers[n/2:]
	after := mustCompile(b, e)
	catalog := []ServiceName{{Name: "db"}, {Name: "web"}}
	b.ReportAllocs()
	for b.Loop() {
		if d := Diff(before, after, catalog); len(d) != n/2 {
			b.Fatal(len(d))
		}
	}
}

// BenchmarkDiffConsumers: half of one rule's n peers dropped.
func BenchmarkDiffConsumers1000(b *testing.B) { benchmarkDiffConsumers(b, 1000) }
func BenchmarkDiffConsumers4000(b *testing.B) { benchmarkDiffConsumers(b, 4000) }

// TestConsumersAreLinear pins the growth of Compile and Diff in one rule's peer consumers:
// 4x the consumers may cost at most 5x the allocations and bytes (a set of the peers seen,
// not a scan of them, per consumer).
func TestConsumersAreLinear(t *testing.T) {
	catalog := []ServiceName{{Name: "db"}, {Name: "web"}}
	work := func(n int) (compileAllocs, compileBytes, diffAllocs, diffBytes float64) {
		e := consumersEntry(n)
		compileAllocs, compileBytes = growth.Allocated(func() { mustCompile(t, e) })
		before := mustCompile(t, e)
		e.Services[0].Consumers = e.Services[0].Consumers[n/2:]
		after := mustCompile(t, e)
		diffAllocs, diffBytes = growth.Allocated(func() {
			if d := Diff(before, after, catalog); len(d) != n/2 {
				t.Fatalf("Diff gave %d changes, want %d", len(d), n/2)
			}
		})
		return
	}
	ca, cb, da, db := work(500)
	ca4, cb4, da4, db4 := work(2000)
	for _, c := range []struct {
		name         string
		small, large float64
	}{
		{"Compile allocations", ca, ca4}, {"Compile bytes", cb, cb4},
		{"Diff allocations", da, da4}, {"Diff bytes", db, db4},
	} {
		assert.Less(t, c.large, 5*c.small, "%s at n=500: %v, at n=2000: %v", c.name, c.small, c.large)
	}
}
