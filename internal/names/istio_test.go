package names

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
)

// istioLabelRef is the expression Istio's validation checks a DNS label with; it limits the
// length (63) separately.
var istioLabelRef = regexp.MustCompile(`^[a-zA-Z0-9](?:[-a-zA-Z0-9]*[a-zA-Z0-9])?$`)

func TestIstioLabel(t *testing.T) {
	tests := []struct {
		s          string
		label, run bool // IstioLabel, IstioLabelChars
	}{
		{"", false, false},
		{"a", true, true},
		{"Shop-1", true, true},
		{"a-b", true, true},
		{"-a", false, false},
		{"a-", false, false},
		{"a.b", false, false},
		{"a_b", false, false},
		{"*", false, false},
		{strings.Repeat("a", 63), true, true},
		{strings.Repeat("a", 64), false, true},
	}
	for _, tt := range tests {
		if got := IstioLabel(tt.s); got != tt.label {
			t.Errorf("IstioLabel(%q) = %v, want %v", tt.s, got, tt.label)
		}
		if got := IstioLabelChars(tt.s); got != tt.run {
			t.Errorf("IstioLabelChars(%q) = %v, want %v", tt.s, got, tt.run)
		}
	}
}

// TestIstioLabelMatchesReference holds IstioLabel and IstioLabelChars to Istio's expression on
// random strings of the characters names are made of, and a few others.
func TestIstioLabelMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 9))
	for range longtest.N(5000, 100000) {
		checkIstioLabel(t, istiotest.NameLike(r))
	}
}

// FuzzIstioLabel holds IstioLabel and IstioLabelChars to Istio's expression on arbitrary
// input.
func FuzzIstioLabel(f *testing.F) {
	for _, s := range []string{"web", "Web-1", "-a", "a-", "a.b", strings.Repeat("a", 64)} {
		f.Add(s)
	}
	f.Fuzz(checkIstioLabel)
}

// checkIstioLabel fails t when IstioLabel or IstioLabelChars disagrees with istioLabelRef
// about s.
func checkIstioLabel(t *testing.T, s string) {
	ref := istioLabelRef.MatchString(s)
	if got, want := IstioLabel(s), len(s) <= 63 && ref; got != want {
		t.Fatalf("IstioLabel(%q) = %v, want %v", s, got, want)
	}
	if got := IstioLabelChars(s); got != ref {
		t.Fatalf("IstioLabelChars(%q) = %v, want %v", s, got, ref)
	}
}
