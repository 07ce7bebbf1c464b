package sni

import (
	"fmt"
	"strings"
	"testing"
)

var benchService = Service{Subset: "v2", Service: "api", Namespace: "neighbor", Partition: "part1", Datacenter: "dc1", TrustDomain: td}

var sink string

func BenchmarkString(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sink = benchService.String()
	}
}

// BenchmarkStringSprintf is the baseline: the same name with fmt.Sprintf.
func BenchmarkStringSprintf(b *testing.B) {
	b.ReportAllocs()
	s := benchService
	for b.Loop() {
		sink = fmt.Sprintf("%s.%s.%s.%s.%s.internal-v1.%s", s.Subset, s.Service, s.Namespace, s.Partition, s.Datacenter, s.TrustDomain)
	}
}

func BenchmarkAppendTo(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 256)
	for b.Loop() {
		buf = benchService.AppendTo(buf[:0])
	}
}

// benchNames are SNI names as meshscope meets them: short (a service in the default
// namespace and partition), typical (a subset in a partition), and long (long labels, near
// MaxLength).
var benchNames = []struct{ name, sni string }{
	{"short", Service{Service: "web", Datacenter: "dc1", TrustDomain: td}.String()},
	{"typical", benchService.String()},
	{"long", Service{Subset: "canary-" + strings.Repeat("v", 20), Service: "payments-reconciliation-worker-" + strings.Repeat("x", 30),
		Namespace: "ecommerce-backend-" + strings.Repeat("n", 20), Partition: "tenant-" + strings.Repeat("p", 20),
		Datacenter: "us-east-1-prod", TrustDomain: td}.String()},
}

func BenchmarkParse(b *testing.B) {
	for _, bn := range benchNames {
		b.Run(bn.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(bn.sni, td); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseStepByStep is the one-pass reader's reason to be: the same names read by the
// step-by-step reader alone, which Parse keeps for the names the one pass refuses.
func BenchmarkParseStepByStep(b *testing.B) {
	for _, bn := range benchNames {
		b.Run(bn.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parseSlow(bn.sni, td); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseSplit is the baseline: strip the trust domain and split on "." (no validation).
func BenchmarkParseSplit(b *testing.B) {
	b.ReportAllocs()
	name := benchService.String()
	for b.Loop() {
		parts := strings.Split(strings.TrimSuffix(name, "."+td), ".")
		if len(parts) != 6 {
			b.Fatal(parts)
		}
	}
}

var sinkLabels int

// BenchmarkSplitLabels is Parse's check-and-cut pass alone (no allocation).
func BenchmarkSplitLabels(b *testing.B) {
	for _, bn := range benchNames {
		b.Run(bn.name, func(b *testing.B) {
			b.ReportAllocs()
			end := len(bn.sni) - len(td) - 1
			var dots [7]int
			for b.Loop() {
				n, ok := split(&dots, bn.sni, end)
				if !ok {
					b.Fatal(bn.sni)
				}
				sinkLabels += n
			}
		})
	}
}
