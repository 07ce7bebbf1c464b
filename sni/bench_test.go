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

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	name := benchService.String()
	for b.Loop() {
		if _, err := Parse(name, td); err != nil {
			b.Fatal(err)
		}
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
	b.ReportAllocs()
	name := benchService.String()
	end := len(name) - len(td) - 1
	var dots [7]int
	for b.Loop() {
		n, ok := split(&dots, name, end)
		if !ok {
			b.Fatal(name)
		}
		sinkLabels += n
	}
}
