package spiffe

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

var benchService = Service{TrustDomain: "11111111-2222-3333-4444-555555555555.consul", Partition: "bizdev", Namespace: "shop", Datacenter: "dc1", Service: "web"}

var (
	sink   string
	idSink Identity
)

func BenchmarkString(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sink = benchService.String()
	}
}

// BenchmarkStringSprintf is the baseline: the same URI with fmt.Sprintf.
func BenchmarkStringSprintf(b *testing.B) {
	b.ReportAllocs()
	s := benchService
	for b.Loop() {
		sink = fmt.Sprintf("spiffe://%s/ap/%s/ns/%s/dc/%s/svc/%s", s.TrustDomain, s.Partition, s.Namespace, s.Datacenter, s.Service)
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	uri := benchService.String()
	for b.Loop() {
		id, err := Parse(uri)
		if err != nil {
			b.Fatal(err)
		}
		idSink = id
	}
}

// BenchmarkParseURL is the baseline: url.Parse, then split the path (and validate nothing).
func BenchmarkParseURL(b *testing.B) {
	b.ReportAllocs()
	uri := benchService.String()
	for b.Loop() {
		u, err := url.Parse(uri)
		if err != nil {
			b.Fatal(err)
		}
		segs := strings.Split(strings.TrimPrefix(u.Path, "/"), "/")
		if len(segs) != 8 {
			b.Fatal(segs)
		}
		idSink = Service{TrustDomain: u.Host, Partition: segs[1], Namespace: segs[3], Datacenter: segs[5], Service: segs[7]}
	}
}
