package exports

import (
	"fmt"
	"testing"
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
