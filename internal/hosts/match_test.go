package hosts

import (
	"strings"
	"testing"
)

func TestCovers(t *testing.T) {
	tests := []struct {
		pattern, host string
		covers        bool
	}{
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
	}
	for _, tt := range tests {
		if got := Covers(tt.pattern, tt.host); got != tt.covers {
			t.Errorf("Covers(%q, %q) = %v, want %v", tt.pattern, tt.host, got, tt.covers)
		}
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		a, b    string
		matches bool
	}{
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
	}
	for _, tt := range tests {
		if got := Matches(tt.a, tt.b); got != tt.matches {
			t.Errorf("Matches(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.matches)
		}
	}
}

func TestMoreSpecific(t *testing.T) {
	tests := []struct {
		a, b string
		more bool
	}{
		{"x.a.b", "*.a.b", true},
		{"*.a.b", "x.a.b", false},
		{"*.x.a.b", "*.a.b", true},
		{"*.a.b", "*.x.a.b", false},
		{"*.a.b", "*", true},
		{"*", "*.a.b", false},
		{"*.a.b", "*.a.b", false},
		{"x.a.b", "x.a.b", false},
	}
	for _, tt := range tests {
		if got := MoreSpecific(tt.a, tt.b); got != tt.more {
			t.Errorf("MoreSpecific(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.more)
		}
	}
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
