package istiotest

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/growth"
)

// FieldErrors returns every problem joined in err as a FieldError value, failing the test if
// one is of another type.
func FieldErrors(t testing.TB, err error) []fielderr.Error {
	t.Helper()
	var out []fielderr.Error
	for _, e := range fielderr.Split(err) {
		fe, ok := e.(*fielderr.Error)
		if !ok {
			t.Fatalf("%T is not a *FieldError: %v", e, e)
		}
		out = append(out, *fe)
	}
	return out
}

// PlacedProblems returns the problems joined in err, failing the test unless each is a
// FieldError that names its place — its object (Where) or its field — but for a problem about
// the whole of a stream's only document, which the reader words "the document must be an
// object…" or "not YAML or JSON…".
func PlacedProblems(t testing.TB, err error) []fielderr.Error {
	t.Helper()
	list := FieldErrors(t, err)
	for _, fe := range list {
		whole := strings.HasPrefix(fe.Detail, "the document must be an object") || strings.HasPrefix(fe.Detail, "not YAML or JSON")
		if fe.Where == "" && fe.Field == "" && !whole {
			t.Fatalf("problem without a path: %q", fe.Error())
		}
	}
	return list
}

// IstioMessages splits an error of Istio's validation into its messages: one, or several as
// hashicorp/go-multierror lists them ("2 errors occurred:\n\t* A\n\t* B\n\n").
func IstioMessages(s string) []string {
	if !strings.Contains(s, "\n\t* ") {
		return []string{s}
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if m, ok := strings.CutPrefix(line, "\t* "); ok {
			out = append(out, m)
		}
	}
	return out
}

// Prefixes reads IPs and CIDRs as netip prefixes, an IP as a /32 or /128, exactly as
// written: IPv4 mapped into IPv6 stays mapped and host bits stay set. nil stays nil.
func Prefixes(addrs ...string) []netip.Prefix {
	if addrs == nil {
		return nil
	}
	out := make([]netip.Prefix, len(addrs))
	for i, a := range addrs {
		if strings.Contains(a, "/") {
			out[i] = netip.MustParsePrefix(a)
		} else {
			ip := netip.MustParseAddr(a)
			out[i] = netip.PrefixFrom(ip, ip.BitLen())
		}
	}
	return out
}

// NestedListsGrowth holds a loader to linear cost in the depth of nested Lists: load reads
// Lists nested 100 and 400 deep, each level holding item (NestedLists), and allocates at 4x
// the depth at most 1.2 times 4x the bytes, or, when every item has a problem (fail), 1.2
// times the growth of its message, which names every item's path and so grows 16x; the
// message names the innermost item.
func NestedListsGrowth(t *testing.T, item string, load func([]byte) error, fail bool) {
	t.Helper()
	work := func(n int) (bytes, out float64) {
		data := NestedLists(n, item)
		var err error
		_, bytes = growth.Allocated(func() { err = load(data) })
		if !fail {
			if err != nil {
				t.Fatal(err)
			}
			return bytes, 1
		}
		if err == nil {
			t.Fatal("a problem in every item, and no error")
		}
		if !strings.Contains(err.Error(), strings.Repeat("items[1].", n-1)+"items[0]") {
			t.Fatalf("the innermost item is not named: %.300s", err)
		}
		return bytes, float64(len(err.Error()))
	}
	small, smallOut := work(100)
	large, largeOut := work(400)
	if large/small >= 1.2*max(4, largeOut/smallOut) {
		t.Errorf("bytes allocated at depth 100: %v, at 400: %v", small, large)
	}
}

// ErrorTexts returns the message of every problem joined in err, in order; none for nil.
func ErrorTexts(err error) []string {
	var out []string
	for _, e := range fielderr.Split(err) {
		out = append(out, e.Error())
	}
	return out
}
