package hosts

import (
	"strings"
	"testing"
)

// pair is a case of a relation between two hosts: whether it holds from a to b.
type pair struct {
	a, b string
	want bool
}

// checkPairs holds the relation fn, called name, to each case.
func checkPairs(t *testing.T, name string, fn func(a, b string) bool, cases []pair) {
	t.Helper()
	for _, c := range cases {
		if got := fn(c.a, c.b); got != c.want {
			t.Errorf("%s(%q, %q) = %v, want %v", name, c.a, c.b, got, c.want)
		}
	}
}

// TestCovers: Covers(pattern, host).
func TestCovers(t *testing.T) {
	checkPairs(t, "Covers", Covers, []pair{
		{"a.b", "a.b", true},
		{"a.b", "x.a.b", false},
		{"a.b", "*.b", false}, // an exact pattern never covers a wildcard
		{"*.a.b", "x.a.b", true},
		{"*.a.b", "y.x.a.b", true},
		{"*.a.b", "a.b", false},
		{"*.a.b", "*.a.b", true},
		{"*.a.b", "*.x.a.b", true},
		{"*.x.a.b", "*.a.b", false},
		{"*-canary.a", "web-canary.a", true},
		{"*-canary.a", "*-canary.a", true},
		{"*", "a.b", true},
		{"*", "*", true},
		{"*", "*.a", true},
		{"*", "", true},
		{"", "", true},
		{"", "*", false},
		{"a.b", "A.b", false}, // compared as written
		{"*.a.b", "x.a.b.", false},
		{"*.a.b.", "x.a.b.", true},
		{"**", "*", false},
		{"*", "**", true},
	})
}

func TestMatches(t *testing.T) {
	checkPairs(t, "Matches", Matches, []pair{
		{"a.b", "a.b", true},
		{"a.b", "x.b", false},
		{"*.b", "a.b", true},
		{"a.b", "*.b", true},
		{"*.b", "*.a.b", true},
		{"*.a.b", "*.b", true},
		{"*.a.b", "*.c.b", false},
		{"*", "anything", true},
		{"", "*", true},
		{"a.b", "A.b", false},
	})
}

func TestMoreSpecific(t *testing.T) {
	checkPairs(t, "MoreSpecific", MoreSpecific, []pair{
		{"x.a.b", "*.a.b", true},
		{"*.a.b", "x.a.b", false},
		{"*.x.a.b", "*.a.b", true},
		{"*.a.b", "*.x.a.b", false},
		{"*.a.b", "*", true},
		{"*", "*.a.b", false},
		{"*.a.b", "*.a.b", false},
		{"x.a.b", "x.a.b", false},
	})
}

// TestHostMatchingExhaustive holds the matching helpers to their literal definitions on every
// string of up to five bytes of "*", ".", "a" and "b".
func TestHostMatchingExhaustive(t *testing.T) {
	all := []string{""}
	for n, last := 0, all; n < 5; n++ {
		var next []string
		for _, s := range last {
			for _, c := range "*.ab" {
				next = append(next, s+string(c))
			}
		}
		all, last = append(all, next...), next
	}
	for _, a := range all {
		for _, b := range all {
			checkMatching(t, a, b)
		}
	}
}

// FuzzHostMatching holds the matching helpers to their literal definitions on arbitrary input.
func FuzzHostMatching(f *testing.F) {
	for _, s := range [][2]string{{"*.a.b", "x.a.b"}, {"*", "*"}, {"*.a", "*.b.a"}, {"a.b", "a.b"}, {"", "*"}, {"*-x.a", "*x.a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(checkMatching)
}

// checkMatching fails t when Covers, Matches or MoreSpecific disagree, for a and b, with what
// they are defined to be.
func checkMatching(t *testing.T, a, b string) {
	if got, want := Covers(a, b), coversSlow(a, b); got != want {
		t.Fatalf("Covers(%q, %q) = %v, want %v", a, b, got, want)
	}
	if got, want := Matches(a, b), coversSlow(a, b) || coversSlow(b, a); got != want {
		t.Fatalf("Matches(%q, %q) = %v, want %v", a, b, got, want)
	}
	if a != b && coversSlow(a, b) {
		// a and b both cover b: one of them must rank first, and an exact b beats a.
		if MoreSpecific(a, b) == MoreSpecific(b, a) {
			t.Fatalf("MoreSpecific ties %q and %q, which both cover %q", a, b, b)
		}
		if !strings.HasPrefix(b, "*") && !MoreSpecific(b, a) {
			t.Fatalf("MoreSpecific(%q, %q) is false: an exact pattern must beat a wildcard", b, a)
		}
	}
}

// coversSlow is Covers spelt from what hosts stand for: an exact host for itself, a wildcard
// "*" + s for every name ending with s. A pattern covers a host when it stands for every name
// the host stands for; for a wildcard host, every name x + s is checked for a few x, which
// decides it, since x = "" is the shortest.
func coversSlow(pattern, host string) bool {
	member := func(name string) bool {
		if !strings.HasPrefix(pattern, "*") {
			return name == pattern
		}
		for i := 0; i <= len(name); i++ {
			if name[i:] == pattern[1:] {
				return true
			}
		}
		return false
	}
	rest, wild := strings.CutPrefix(host, "*")
	if !wild {
		return member(host)
	}
	for _, x := range []string{"", "q", "q.r", "*"} {
		if !member(x + rest) {
			return false
		}
	}
	return true
}
