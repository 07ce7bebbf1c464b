package visibility

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/istiotest"
)

// benchConfig has n policies, each matching one team in prod; a namespace of the last team
// walks every policy.
func benchConfig(n int) *Config { return istiotest.ManyPolicies[Config](n) }

var decisionSink Decision

func BenchmarkResolve100Policies(b *testing.B) {
	r := mustCompile(b, benchConfig(100))
	ls := labels.Set{"team": "t99", "env": "prod", NamespaceNameLabel: "shop"}
	b.ReportAllocs()
	for b.Loop() {
		decisionSink = r.Resolve(ls)
	}
	if decisionSink.Policy != 99 {
		b.Fatal(decisionSink)
	}
}

// BenchmarkResolve100PoliciesConvertEachCall is the baseline: convert every selector with
// metav1.LabelSelectorAsSelector on each call, as code that keeps only the raw config does.
func BenchmarkResolve100PoliciesConvertEachCall(b *testing.B) {
	c := benchConfig(100)
	ls := labels.Set{"team": "t99", "env": "prod", NamespaceNameLabel: "shop"}
	b.ReportAllocs()
	for b.Loop() {
		decisionSink = Decision{c.DefaultVisibility, -1}
	policies:
		for i, p := range c.Policies {
			for _, r := range p.MatchingRules {
				s, err := metav1.LabelSelectorAsSelector(r.NamespaceSelector)
				if err != nil {
					b.Fatal(err)
				}
				if !s.Matches(ls) {
					continue policies
				}
			}
			decisionSink = Decision{p.Visibility, i}
			break
		}
	}
	if decisionSink.Policy != 99 {
		b.Fatal(decisionSink)
	}
}

func BenchmarkCompile100Policies(b *testing.B) {
	c := benchConfig(100)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(c); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkLint(b *testing.B, n int, naive bool) {
	res, err := Compile(lintConfig(n))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if naive {
			refShadowed(res)
		} else {
			res.Lint()
		}
	}
}

func BenchmarkLint1000(b *testing.B)      { benchmarkLint(b, 1000, false) }
func BenchmarkLint4000(b *testing.B)      { benchmarkLint(b, 4000, false) }
func BenchmarkLint1000Naive(b *testing.B) { benchmarkLint(b, 1000, true) }
func BenchmarkLint4000Naive(b *testing.B) { benchmarkLint(b, 4000, true) }
