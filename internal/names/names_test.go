package names

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/meshscope/meshscope/internal/longtest"
)

// reasonCase is an input of a check and the reason the check gives for it ("" for none).
type reasonCase struct{ name, in, reason string }

// checkReasons holds check to each case, in a subtest of its name.
func checkReasons(t *testing.T, check func(string) string, cases []reasonCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.reason, check(c.in)) })
	}
}

func TestLabel(t *testing.T) {
	checkReasons(t, Label, []reasonCase{
		{"simple", "web", ""},
		{"digits and dash", "a-1", ""},
		{"single char", "a", ""},
		{"max length", strings.Repeat("a", 63), ""},
		{"empty", "", "must not be empty"},
		{"too long", strings.Repeat("a", 64), "must be at most 63 characters long, has 64"},
		{"upper case", "Web", "must be lower case"},
		{"dot", "web.default", `must not contain "." (the label separator)`},
		{"slash", "a/b", `must not contain "/" (the path separator)`},
		{"underscore", "a_b", `must not contain '_' (allowed: a-z, 0-9 and "-")`},
		{"leading dash", "-a", "must start and end with a lower-case letter or a digit"},
		{"trailing dash", "a-", "must start and end with a lower-case letter or a digit"},
	})
}

func TestDatacenter(t *testing.T) {
	assert.Equal(t, "", Datacenter("dc_1"))
	assert.Equal(t, "must start and end with a lower-case letter or a digit", Datacenter("_dc"))
	assert.Equal(t, `must not contain '!' (allowed: a-z, 0-9, "-" and "_")`, Datacenter("dc!"))
}

func TestSubdomain(t *testing.T) {
	checkReasons(t, Subdomain, []reasonCase{
		{"one label", "consul", ""},
		{"trust domain", "11111111-2222-3333-4444-555555555555.consul", ""},
		{"empty", "", "must not be empty"},
		{"leading dot", ".consul", `must not have an empty label (a leading, trailing or doubled ".")`},
		{"double dot", "a..b", `must not have an empty label (a leading, trailing or doubled ".")`},
		{"trailing dot", "a.b.", `must not have an empty label (a leading, trailing or doubled ".")`},
		{"bad label", "a.B", `label "B" must be lower case`},
		{"too long", strings.Repeat("a.", 127), "must be at most 253 characters long, has 254"},
	})
}

// TestAgainstApimachinery holds the byte loops to k8s.io/apimachinery's regular expressions on
// random strings drawn from an alphabet that hits every branch.
func TestAgainstApimachinery(t *testing.T) {
	const alphabet = "ab09-._A/"
	r := rand.New(rand.NewPCG(1, 2))
	for range longtest.N(20000, 200000) {
		n := r.IntN(12)
		if r.IntN(50) == 0 {
			n = 60 + r.IntN(200)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		if got, want := IsLabel(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Fatalf("IsLabel(%q) = %v, apimachinery says %v", s, got, want)
		}
		if got, want := Subdomain(s) == "", subdomainRef(s); got != want {
			t.Fatalf("Subdomain(%q) = %q, apimachinery (with labels of at most 63) says valid: %v", s, Subdomain(s), want)
		}
	}
}

func TestLabelDoesNotAllocate(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		_ = Label("some-label-0")
		_ = Subdomain("trust.domain.consul")
	})
	assert.Zero(t, allocs)
}

// FuzzNames holds the byte-loop checks to apimachinery's on arbitrary input.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"web", "web.default", "a-", "A", "a_b", "1.consul", strings.Repeat("a", 64)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsLabel(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Fatalf("IsLabel(%q) = %v, apimachinery says %v", s, got, want)
		}
		if got, want := Subdomain(s) == "", subdomainRef(s); got != want {
			t.Fatalf("Subdomain(%q) = %q, apimachinery (with labels of at most 63) says valid: %v", s, Subdomain(s), want)
		}
		if r := Datacenter(s); (r == "") != (len(s) >= 1 && len(s) <= 63 && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-_") == "" &&
			strings.Trim(s[:1]+s[len(s)-1:], "abcdefghijklmnopqrstuvwxyz0123456789") == "") {
			t.Fatalf("Datacenter(%q) = %q", s, r)
		}
	})
}

// subdomainRef is apimachinery's subdomain check plus RFC 1123's 63-octet label limit, which
// apimachinery does not apply within a subdomain.
func subdomainRef(s string) bool {
	if len(validation.IsDNS1123Subdomain(s)) > 0 {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if len(l) > 63 {
			return false
		}
	}
	return true
}
