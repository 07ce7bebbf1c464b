package chain

import (
	"fmt"
	"testing"

	"github.com/meshscope/meshscope/exports"
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
	req := Request{Service: exports.ServiceName{Name: "main"}, Datacenter: "dc1", TrustDomain: td}
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
	req := Request{Service: exports.ServiceName{Name: name(0)}, Datacenter: "dc1", TrustDomain: td}
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
	req := Request{Service: exports.ServiceName{Name: "main"}, Datacenter: "dc1", TrustDomain: td}
	b.ReportAllocs()
	for b.Loop() {
		_, failover, err := refCompile(req, e.Resolvers)
		if err != "" || len(failover) != 100 {
			b.Fatal(err, len(failover))
		}
	}
}

// sharedPath returns entries where main fails over to n services that all redirect into one
// n-hop redirect path: every candidate resolves to the same final target.
func sharedPath(n int) Entries {
	var rs []ServiceResolver
	var targets []FailoverTarget
	for i := range n {
		svc := fmt.Sprintf("t%d", i)
		targets = append(targets, FailoverTarget{Service: svc})
		rs = append(rs, ServiceResolver{Name: svc, Redirect: &Redirect{Service: "hop0"}})
		if i+1 < n {
			rs = append(rs, ServiceResolver{Name: fmt.Sprintf("hop%d", i), Redirect: &Redirect{Service: fmt.Sprintf("hop%d", i+1)}})
		}
	}
	rs = append(rs, ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Targets: targets}}})
	return Entries{Resolvers: rs}
}

func benchmarkSharedPath(b *testing.B, n int) {
	cc, err := NewCompiler(sharedPath(n))
	if err != nil {
		b.Fatal(err)
	}
	req := Request{Service: exports.ServiceName{Name: "main"}, Datacenter: "dc1", TrustDomain: td}
	b.ReportAllocs()
	for b.Loop() {
		c, err := cc.Compile(req)
		if err != nil || len(c.Targets) != 2 {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileSharedPath{250,1000}: n failover candidates sharing an n-hop redirect path,
// at n and 4n; linear work grows 4x.
func BenchmarkCompileSharedPath250(b *testing.B)  { benchmarkSharedPath(b, 250) }
func BenchmarkCompileSharedPath1000(b *testing.B) { benchmarkSharedPath(b, 1000) }

// BenchmarkReferenceSharedPath250 is the baseline: the literal reference walks the whole
// path again for every candidate.
func BenchmarkReferenceSharedPath250(b *testing.B) {
	e := sharedPath(250)
	req := Request{Service: exports.ServiceName{Name: "main"}, Datacenter: "dc1", TrustDomain: td}
	b.ReportAllocs()
	for b.Loop() {
		if _, failover, err := refCompile(req, e.Resolvers); err != "" || len(failover) != 250 {
			b.Fatal(err, failover)
		}
	}
}
