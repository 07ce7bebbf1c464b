package visibility

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
)

func matchLabels(kv ...string) MatchingRule {
	return MatchingRule{NamespaceSelector: istiotest.LabelSelector(kv...)}
}

func matchExpr(key string, op metav1.LabelSelectorOperator, values ...string) MatchingRule {
	return MatchingRule{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}}}
}

func everything() MatchingRule { return MatchingRule{NamespaceSelector: &metav1.LabelSelector{}} }

func mustCompile(t testing.TB, c *Config) *Resolver {
	t.Helper()
	r, err := Compile(c)
	require.NoError(t, err)
	return r
}

func TestResolve(t *testing.T) {
	teamA := &Config{DefaultVisibility: Namespace, Policies: []Policy{{Visibility: Public, MatchingRules: []MatchingRule{matchLabels("team", "a")}}}}
	teamAndEnv := &Config{DefaultVisibility: None, Policies: []Policy{{Visibility: Public, MatchingRules: []MatchingRule{
		matchLabels("team", "a"), matchExpr("env", metav1.LabelSelectorOpIn, "prod", "stage"),
	}}}}
	trusted := &Config{DefaultVisibility: Public, Policies: []Policy{
		{Visibility: None, MatchingRules: []MatchingRule{matchExpr("trusted", metav1.LabelSelectorOpDoesNotExist)}},
		{Visibility: Namespace, MatchingRules: []MatchingRule{matchExpr("trusted", metav1.LabelSelectorOpNotIn, "true")}},
	}}
	tests := []struct {
		name   string
		config *Config
		labels labels.Labels
		want   Decision
	}{
		// The documented examples: default NAMESPACE with [PUBLIC if team=a].
		{"team a is public", teamA, labels.Set{"team": "a"}, Decision{Public, 0}},
		{"team b gets the default", teamA, labels.Set{"team": "b"}, Decision{Namespace, -1}},
		{"unknown namespace gets the default", teamA, nil, Decision{Namespace, -1}},
		{"AND: team a in prod", teamAndEnv, labels.Set{"team": "a", "env": "prod"}, Decision{Public, 0}},
		{"AND: team a in dev", teamAndEnv, labels.Set{"team": "a", "env": "dev"}, Decision{None, -1}},
		{"AND: env only", teamAndEnv, labels.Set{"env": "prod"}, Decision{None, -1}},
		{"untrusted is none", trusted, labels.Set{}, Decision{None, 0}},
		{"trusted true is public", trusted, labels.Set{"trusted": "true"}, Decision{Public, -1}},
		{"trusted false is namespace", trusted, labels.Set{"trusted": "false"}, Decision{Namespace, 1}},
		// Other rules.
		{"nil config: feature off", nil, labels.Set{"team": "a"}, Decision{Public, -1}},
		{"empty config: public default", &Config{}, labels.Set{}, Decision{Public, -1}},
		{"unspecified default is public", &Config{DefaultVisibility: Unspecified}, nil, Decision{Public, -1}},
		{"policy without rules matches all", &Config{DefaultVisibility: Public, Policies: []Policy{{Visibility: None}}}, labels.Set{"x": "y"}, Decision{None, 0}},
		{"empty selector matches all", &Config{Policies: []Policy{{Visibility: Namespace, MatchingRules: []MatchingRule{everything()}}}}, nil, Decision{Namespace, 0}},
		{"unspecified policy visibility is public", &Config{DefaultVisibility: None, Policies: []Policy{{MatchingRules: []MatchingRule{everything()}}}}, nil, Decision{Public, 0}},
		{"first match wins", &Config{Policies: []Policy{
			{Visibility: Namespace, MatchingRules: []MatchingRule{matchLabels("a", "1")}},
			{Visibility: None, MatchingRules: []MatchingRule{matchLabels("a", "1")}},
		}}, labels.Set{"a": "1"}, Decision{Namespace, 0}},
		{"select by namespace name", &Config{DefaultVisibility: None, Policies: []Policy{
			{Visibility: Public, MatchingRules: []MatchingRule{matchExpr(NamespaceNameLabel, metav1.LabelSelectorOpIn, "kube-system", "istio-system")}},
		}}, labels.Set{NamespaceNameLabel: "istio-system"}, Decision{Public, 0}},
		{"exists", &Config{Policies: []Policy{{Visibility: None, MatchingRules: []MatchingRule{matchExpr("a", metav1.LabelSelectorOpExists)}}}}, labels.Set{"a": ""}, Decision{None, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustCompile(t, tt.config)
			assert.Equal(t, tt.config != nil, r.Enabled())
			got := r.Resolve(tt.labels)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got, r.Explain(tt.labels).Decision)
			assert.Equal(t, got, refResolve(tt.config, toMap(tt.labels)))
		})
	}
}

func toMap(ls labels.Labels) map[string]string {
	if ls == nil {
		return nil
	}
	return ls.(labels.Set)
}

func TestNilResolver(t *testing.T) {
	var r *Resolver
	assert.False(t, r.Enabled())
	assert.Equal(t, Decision{Public, -1}, r.Resolve(labels.Set{"a": "b"}))
	assert.Nil(t, r.Condition(Decision{Namespace, 0}))
	assert.Nil(t, r.Lint())
	assert.Equal(t, Public, r.Explain(nil).DefaultVisibility)
	assert.Nil(t, r.PolicySelectors(0))
	assert.False(t, r.AppliesToSidecars())
}

func TestCompileCopies(t *testing.T) {
	c := &Config{DefaultVisibility: Namespace, Policies: []Policy{{Visibility: Public, MatchingRules: []MatchingRule{matchLabels("team", "a")}}}}
	r := mustCompile(t, c)
	c.Policies[0].Visibility = None
	c.Policies[0].MatchingRules[0].NamespaceSelector.MatchLabels["team"] = "b"
	c.DefaultVisibility = Public
	assert.Equal(t, Decision{Public, 0}, r.Resolve(labels.Set{"team": "a"}))
	assert.Equal(t, Decision{Namespace, -1}, r.Resolve(labels.Set{"team": "b"}))
}

// refResolve is the resolution rule read literally ("policies are tried in order; the first
// whose rules all match decides; else the default"): walk the policies in order, evaluate
// every rule's selector by hand from its definition, first full match wins.
func refResolve(c *Config, ns map[string]string) Decision {
	if c == nil {
		return Decision{Public, -1}
	}
	eff := func(v Visibility) Visibility {
		if v == "" || v == Unspecified {
			return Public
		}
		return v
	}
	for i, p := range c.Policies {
		all := true
		for _, r := range p.MatchingRules {
			if !refSelects(r.NamespaceSelector, ns) {
				all = false
			}
		}
		if all {
			return Decision{eff(p.Visibility), i}
		}
	}
	return Decision{eff(c.DefaultVisibility), -1}
}

func refSelects(s *metav1.LabelSelector, ns map[string]string) bool {
	for k, v := range s.MatchLabels {
		if got, ok := ns[k]; !ok || got != v {
			return false
		}
	}
	for _, e := range s.MatchExpressions {
		got, ok := ns[e.Key]
		switch e.Operator {
		case metav1.LabelSelectorOpIn:
			if !ok || !slices.Contains(e.Values, got) {
				return false
			}
		case metav1.LabelSelectorOpNotIn:
			if ok && slices.Contains(e.Values, got) {
				return false
			}
		case metav1.LabelSelectorOpExists:
			if !ok {
				return false
			}
		case metav1.LabelSelectorOpDoesNotExist:
			if ok {
				return false
			}
		}
	}
	return true
}

// TestResolveAgainstReference checks the compiled resolver and its explanation against the
// literal reference on random configurations and namespaces.
func TestResolveAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := range longtest.N(300, 3000) {
		c := istiotest.Config[Config](r, 6)
		res := mustCompile(t, c)
		for range 30 {
			ns := istiotest.Labels(r)
			var ls labels.Labels
			if ns != nil {
				ls = labels.Set(ns)
			}
			want := refResolve(c, ns)
			got := res.Resolve(ls)
			require.Equal(t, want, got, "config %d, labels %v", i, ns)
			e := res.Explain(ls)
			require.Equal(t, want, e.Decision)
			for _, pt := range e.Policies {
				matched := pt.FailedRule < 0
				require.Equal(t, matched, pt.Matched)
				if pt.Decided {
					require.True(t, pt.Matched)
				}
			}
		}
	}
}

func TestResolveDoesNotAllocate(t *testing.T) {
	r := mustCompile(t, benchConfig(100))
	ls := labels.Set{"team": "t99", "env": "prod"}
	assert.Zero(t, testing.AllocsPerRun(100, func() { r.Resolve(ls) }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { r.Resolve(nil) }))
}

func TestResolveConcurrent(t *testing.T) {
	r := mustCompile(t, benchConfig(20))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				ls := labels.Set{"team": fmt.Sprintf("t%d", (g+i)%25), "env": "prod"}
				d := r.Resolve(ls)
				if (g+i)%25 < 20 && d.Policy != (g+i)%25 {
					t.Errorf("labels %v: %v", ls, d)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestExplainString(t *testing.T) {
	r := mustCompile(t, &Config{DefaultVisibility: Namespace, Policies: []Policy{
		{Visibility: Public, MatchingRules: []MatchingRule{matchLabels("team", "a"), matchExpr("env", metav1.LabelSelectorOpIn, "prod", "stage")}},
		{Visibility: None, MatchingRules: []MatchingRule{matchLabels("team", "b")}},
		{Visibility: Namespace, MatchingRules: []MatchingRule{matchExpr("team", metav1.LabelSelectorOpExists)}},
	}})
	assert.Equal(t, `policies[0] PUBLIC: no match: matchingRules[1] (env in (prod,stage)) does not select the namespace
policies[1] NONE: no match: matchingRules[0] (team=b) does not select the namespace
policies[2] NAMESPACE: matches, decides
=> NAMESPACE by policies[2]`, r.Explain(labels.Set{"team": "a", "env": "dev"}).String())
	assert.Equal(t, `policies[0] PUBLIC: no match: matchingRules[0] (team=a) does not select the namespace
policies[1] NONE: matches, decides
policies[2] NAMESPACE: matches, but policies[1] decided first
=> NONE by policies[1]`, r.Explain(labels.Set{"team": "b"}).String())
	assert.Equal(t, `policies[0] PUBLIC: no match: matchingRules[0] (team=a) does not select the namespace
policies[1] NONE: no match: matchingRules[0] (team=b) does not select the namespace
policies[2] NAMESPACE: no match: matchingRules[0] (team) does not select the namespace
=> NAMESPACE: no policy matches, the default applies`, r.Explain(nil).String())
	off := mustCompile(t, nil)
	assert.Equal(t, "visibility is not configured: every entry is PUBLIC", off.Explain(nil).String())
}

func TestDecisionString(t *testing.T) {
	assert.Equal(t, "NAMESPACE (policies[2])", Decision{Namespace, 2}.String())
	assert.Equal(t, "PUBLIC (default)", Decision{Public, -1}.String())
}

func TestCondition(t *testing.T) {
	r := mustCompile(t, &Config{DefaultVisibility: Namespace})
	tests := []struct {
		name   string
		d      Decision
		reason string
		msg    string
	}{
		{"public by policy", Decision{Public, 1}, ReasonPublic, "visibility PUBLIC set by policies[1]; every namespace can discover and reach it"},
		{"namespace by default", Decision{Namespace, -1}, ReasonNamespace, "visibility NAMESPACE: no policy matched the namespace, the default applies; only workloads in the entry's own namespace can discover and reach it"},
		{"none", Decision{None, 0}, ReasonNone, "visibility NONE set by policies[0]; no data plane receives the entry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := r.Condition(tt.d)
			require.NotNil(t, c)
			assert.Equal(t, metav1.Condition{Type: ConditionVisibilityApplied, Status: metav1.ConditionTrue, Reason: tt.reason, Message: tt.msg}, *c)
		})
	}
	assert.Nil(t, mustCompile(t, nil).Condition(Decision{Public, -1}), "no condition when the feature is off")
}

func TestWaypointBinding(t *testing.T) {
	tests := []struct {
		name       string
		ns, wpNs   string
		v          Visibility
		status     metav1.ConditionStatus
		reason     string
		msgContain string
	}{
		{"namespace entry, own waypoint", "shop", "shop", Namespace, metav1.ConditionTrue, ReasonWaypointAccepted, `namespace "shop"`},
		{"namespace entry, foreign waypoint", "shop", "infra", Namespace, metav1.ConditionFalse, ReasonCrossNamespaceWaypointForbidden, `the waypoint in namespace "infra" may not serve an entry of namespace "shop"`},
		{"public entry, foreign waypoint", "shop", "infra", Public, metav1.ConditionTrue, ReasonWaypointAccepted, `namespace "infra"`},
		{"unspecified is public", "shop", "infra", "", metav1.ConditionTrue, ReasonWaypointAccepted, ""},
		{"none entry, own waypoint", "shop", "shop", None, metav1.ConditionFalse, ReasonNotDelivered, "NONE"},
		{"none entry, foreign waypoint", "shop", "infra", None, metav1.ConditionFalse, ReasonNotDelivered, "NONE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := WaypointBinding(tt.ns, tt.wpNs, tt.v)
			assert.Equal(t, ConditionWaypointBound, c.Type)
			assert.Equal(t, tt.status, c.Status)
			assert.Equal(t, tt.reason, c.Reason)
			assert.Contains(t, c.Message, tt.msgContain)
		})
	}
}

func newRand(a, b uint64) *rand.Rand { return rand.New(rand.NewPCG(a, b)) }

func TestZeroDecision(t *testing.T) {
	assert.Equal(t, "(no decision)", Decision{}.String())
	assert.Equal(t, "PUBLIC (default)", Decision{Visibility: Public, Policy: NoIndex}.String())
}

func TestDecidedBy(t *testing.T) {
	r := mustCompile(t, &Config{Policies: []Policy{
		{Visibility: Public, MatchingRules: []MatchingRule{matchLabels("team", "platform"), everything()}},
		{Visibility: None},
	}})
	assert.Equal(t, "policies[0] (team=platform and {})", r.DecidedBy(r.Resolve(labels.Set{"team": "platform"})))
	assert.Equal(t, "policies[1] (every namespace)", r.DecidedBy(Decision{Visibility: None, Policy: 1}))
	assert.Equal(t, "default", r.DecidedBy(Decision{Visibility: Public, Policy: NoIndex}))
	assert.Equal(t, "default", (*Resolver)(nil).DecidedBy(Decision{Visibility: Public, Policy: NoIndex}))
}
