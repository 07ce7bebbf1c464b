package chain

import (
	"fmt"
	"testing"
)

// failoverTo returns entries where main fails over to n services, each of which redirects to
// its own backend.
func failoverTo(n int) Entries {
	main := ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {}}}
	rs := []ServiceResolver{}
	var targets []FailoverTarget
	for i := range n {
		svc := fmt.Sprintf("f%d", i)
		targets = append(targets, FailoverTarget{Service: svc})
		rs = append(rs, ServiceResolver{Name: svc, Redirect: &Redirect{Service: fmt.Sprintf("backend%d", i)}})
	}
	main.Failover["*"] = Failover{Targets: targets}
	return Entries{Resolvers: append(rs, main)}
}

func benchmarkFailover(b *testing.B, n int) {
	e := failoverTo(n)
	req := Request{Service: "main", Datacenter: "dc1", TrustDomain: td}
	b.ReportAllocs()
	for b.Loop() {
		c, err := Compile(req, e)
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Targets) != n+1 {
			b.Fatal(len(c.Targets))
		}
	}
}

func BenchmarkCompileFailover100(b *testing.B)  { benchmarkFailover(b, 100) }
func BenchmarkCompileFailover2000(b *testing.B) { benchmarkFailover(b, 2000) }

// BenchmarkCompileRedirectChain1000 follows 1,000 redirect hops.
func BenchmarkCompileRedirectChain1000(b *testing.B) {
	rs := make([]ServiceResolver, 1000)
	for i := range rs {
		rs[i] = ServiceResolver{Name: name(i), Redirect: &Redirect{Service: name(i + 1)}}
	}
	req := Request{Service: name(0), Datacenter: "dc1", TrustDomain: td}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(req, Entries{Resolvers: rs}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReferenceFailover100 is the baseline: the literal recursive reference with linear
// resolver scans, on the 100-service chain.
func BenchmarkReferenceFailover100(b *testing.B) {
	e := failoverTo(100)
	req := Request{Service: "main", Datacenter: "dc1", TrustDomain: td}
	b.ReportAllocs()
	for b.Loop() {
		_, failover, err := refCompile(req, e.Resolvers)
		if err != "" || len(failover) != 100 {
			b.Fatal(err, len(failover))
		}
	}
}
