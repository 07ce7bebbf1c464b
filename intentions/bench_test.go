package intentions

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/growth"
)

// bigSidecar is an HTTP sidecar with n intentions: sources svc-0 … svc-<n-1>, a quarter of them
// of peer east, every third one with permissions, and "*" of each cluster last.
func bigSidecar(n int) Sidecar {
	var list []Intention
	for i := range n {
		x := Intention{SourceName: fmt.Sprintf("svc-%d", i), DestinationName: "api", Action: []Action{Allow, Deny}[i%2]}
		if i%4 == 1 {
			x.SourcePeer = "east"
		}
		if i%3 == 0 {
			x.Action = ""
			x.Permissions = []Permission{
				{Action: Deny, HTTP: &HTTPMatch{PathPrefix: "/admin", Methods: []string{"DELETE"}}},
				{Action: Allow, HTTP: &HTTPMatch{PathRegex: "/api/v[0-9]+/.*", Header: []HeaderMatch{{Name: "x-tenant", Prefix: "acme"}}}},
			}
		}
		list = append(list, x)
	}
	list = append(list, l4("*", "", "api", Deny), l4("*", "east", "api", Allow))
	return sidecar("http", "http", []string{"east"}, list...)
}

// naiveDecide is Decide without the index: it matches every kept intention against the caller,
// then judges the matching ones as Decide does. The baseline Decide's index must beat.
func naiveDecide(d *Destination, c Caller, r Request, acl ACL) Decision {
	var buf [256]byte
	p := d.present(&c, buf[:0])
	req := newHTTPRequest(&r)
	var cands [16]int32
	return d.judge(d.matching(&p, cands[:0]), &req, acl.Default(), nil)
}

var benchCalls = []struct {
	name   string
	caller Caller
	req    Request
}{
	{"L7 caller", Caller{Service: "svc-999"}, Request{Method: "GET", Path: "/api/v2/users", Headers: map[string]string{"x-tenant": "acme-1"}}},
	{"peered caller", Caller{Service: "svc-997", Peer: "east"}, Request{Method: "GET", Path: "/"}},
	{"unknown caller", Caller{Service: "other"}, Request{Method: "GET", Path: "/"}},
}

func BenchmarkDecide(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		d, err := Compile(bigSidecar(n))
		require.NoError(b, err)
		acl := ACL{DefaultPolicy: Deny}
		for _, c := range benchCalls {
			b.Run(fmt.Sprintf("n=%d/%s/indexed", n, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := d.Decide(c.caller, c.req, acl); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("n=%d/%s/naive", n, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					naiveDecide(d, c.caller, c.req, acl)
				}
			})
		}
	}
}

// BenchmarkDecideDotted decides on n sources whose names have a '.': each is a regular
// expression in Envoy's rules, so Decide must read every one (only w.b7 matches the caller
// web7). The time grows linearly with n.
func BenchmarkDecideDotted(b *testing.B) {
	for _, n := range []int{100, 1000} {
		var list []Intention
		for i := range n {
			list = append(list, l4(fmt.Sprintf("w.b%d", i), "", "api", Deny))
		}
		d, err := Compile(sidecar("tcp", "tcp", nil, list...))
		require.NoError(b, err)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Decide(Caller{Service: "web7"}, Request{}, ACL{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCheck(b *testing.B) {
	d, err := Compile(bigSidecar(1000))
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Check("svc-998", ACL{Enabled: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExplain(b *testing.B) {
	d, err := Compile(bigSidecar(1000))
	require.NoError(b, err)
	c := benchCalls[0]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Explain(c.caller, c.req, ACL{DefaultPolicy: Deny}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompile(b *testing.B) {
	s := bigSidecar(1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(s); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecideGrowth pins how the work grows with the intentions, in allocations: a decision and
// a check allocate nothing at 1,000 intentions or 4,000; compiling and explaining grow linearly.
func TestDecideGrowth(t *testing.T) {
	small, large := bigSidecar(1000), bigSidecar(4000)
	ds, err := Compile(small)
	require.NoError(t, err)
	dl, err := Compile(large)
	require.NoError(t, err)
	for _, c := range benchCalls {
		for _, d := range []*Destination{ds, dl} {
			allocs, _ := growth.Allocated(func() { _, _ = d.Decide(c.caller, c.req, ACL{DefaultPolicy: Allow}) })
			require.Zero(t, allocs, "Decide, %s, %d intentions", c.name, len(d.list))
			allocs, _ = growth.Allocated(func() { _, _ = d.Check(c.caller.Service, ACL{}) })
			require.Zero(t, allocs, "Check, %s", c.name)
		}
	}
	for name, f := range map[string]func(s Sidecar, d *Destination) func(){
		"Compile": func(s Sidecar, _ *Destination) func() { return func() { _, _ = Compile(s) } },
		"Explain": func(_ Sidecar, d *Destination) func() {
			return func() { _, _ = d.Explain(benchCalls[0].caller, benchCalls[0].req, ACL{}) }
		},
	} {
		_, bs := growth.Allocated(f(small, ds))
		_, bl := growth.Allocated(f(large, dl))
		require.Less(t, bl, 5*bs, "%s: %.0f bytes at 1,000 intentions, %.0f at 4,000", name, bs, bl)
	}
}
