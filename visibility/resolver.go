package visibility

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// NamespaceNameLabel is the label Kubernetes puts on every namespace with its own name; a
// selector on it selects namespaces by name.
const NamespaceNameLabel = "kubernetes.io/metadata.name"

// Resolver decides the visibility of ServiceEntries from the labels of their namespace. It is
// built by Compile, immutable, and safe for concurrent use. A nil *Resolver behaves as the
// disabled one. Compile keeps nothing of the Config (changing it afterwards changes no
// answer), and everything a Resolver returns — explanations, conditions, selectors,
// findings — is a fresh value the caller owns.
type Resolver struct {
	enabled         bool
	defaultVis      Visibility
	applyToSidecars bool
	policies        []policy
}

type policy struct {
	visibility Visibility
	rules      []rule
	// eval holds the selectors that can fail; rules that match every namespace are left out.
	eval []labels.Selector
}

type rule struct {
	selector labels.Selector
	text     string // the selector's canonical text; "" for the empty selector
}

// Decision is the visibility of one entry and which policy decided it.
//
// The zero Decision is no decision at all — a decision always has a Visibility — and
// prints as "(no decision)".
type Decision struct {
	Visibility Visibility `json:"visibility"`
	// Policy is the index of the deciding policy; NoIndex when none did: the default
	// applied, the feature is off, or the entry is a Kubernetes Service.
	Policy int `json:"policy"`
}

// NoIndex is the one spelling of "no index" in this package's results: Decision.Policy when
// no policy decided, PolicyTrace.FailedRule when every rule matched.
const NoIndex = -1

// String returns, for example, "NAMESPACE (policies[2])" or "PUBLIC (default)".
func (d Decision) String() string {
	if d.Visibility == "" {
		return "(no decision)"
	}
	if d.Policy < 0 {
		return string(d.Visibility) + " (default)"
	}
	return string(d.Visibility) + " (policies[" + strconv.Itoa(d.Policy) + "])"
}

// Compile validates c and returns its Resolver. Every problem is reported at once, each with
// its path (see Config.Validate). A nil c gives the disabled resolver: the feature is inert,
// every entry is Public, and no status conditions are written. A non-nil c, even an empty one,
// enables the feature. Compile copies what it needs: later changes to c do not affect the
// Resolver.
func Compile(c *Config) (*Resolver, error) {
	if c == nil {
		return &Resolver{}, nil
	}
	if errs := c.problems(fielderr.Root(fielderr.Object)); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	r := &Resolver{
		enabled:         true,
		defaultVis:      c.DefaultVisibility.effective(),
		applyToSidecars: c.ApplyToSidecars,
		policies:        make([]policy, len(c.Policies)),
	}
	for i, p := range c.Policies {
		cp := policy{visibility: p.Visibility.effective(), rules: make([]rule, len(p.MatchingRules))}
		for j, mr := range p.MatchingRules {
			sel, err := metav1.LabelSelectorAsSelector(mr.NamespaceSelector)
			if err != nil { // Validate accepted it, so this is not expected; report, don't panic
				problem := rulePath(fielderr.Root(fielderr.Object), i, j).Problem(mr.NamespaceSelector, err.Error())
				problem.Err = err
				return nil, problem
			}
			cp.rules[j] = rule{selector: sel, text: sel.String()}
			if !sel.Empty() {
				cp.eval = append(cp.eval, sel)
			}
		}
		r.policies[i] = cp
	}
	return r, nil
}

// Enabled reports whether the feature is configured.
func (r *Resolver) Enabled() bool { return r != nil && r.enabled }

// AppliesToSidecars reports whether visibility also narrows exportTo for sidecars and
// gateways (applyToSidecars; see EffectiveExportTo). It is false for the disabled resolver.
func (r *Resolver) AppliesToSidecars() bool { return r != nil && r.applyToSidecars }

// defaultVisibility returns the visibility of entries that no policy matches (Public when the
// feature is off).
func (r *Resolver) defaultVisibility() Visibility {
	if !r.Enabled() {
		return Public
	}
	return r.defaultVis
}

// Resolve returns the visibility of a ServiceEntry in a namespace with the given labels: that
// of the first policy whose rules all select the namespace, else the default. A nil set of
// labels is an empty one (a namespace that does not exist). Resolve does not allocate.
func (r *Resolver) Resolve(namespaceLabels labels.Labels) Decision {
	if !r.Enabled() {
		return Decision{Visibility: Public, Policy: -1}
	}
	if namespaceLabels == nil {
		namespaceLabels = labels.Set(nil)
	}
	for i := range r.policies {
		if r.policies[i].matches(namespaceLabels) {
			return Decision{Visibility: r.policies[i].visibility, Policy: i}
		}
	}
	return Decision{Visibility: r.defaultVis, Policy: -1}
}

func (p *policy) matches(ls labels.Labels) bool {
	for _, s := range p.eval {
		if !s.Matches(ls) {
			return false
		}
	}
	return true
}

// PolicySelectors returns the selectors of policy i's rules as text ("team=platform", "" for
// the empty selector that matches every namespace); nil for an index out of range.
func (r *Resolver) PolicySelectors(i int) []string {
	if r == nil || i < 0 || i >= len(r.policies) {
		return nil
	}
	out := make([]string, len(r.policies[i].rules))
	for j, ru := range r.policies[i].rules {
		out[j] = ru.text
	}
	return out
}

// DecidedBy names what decided d, for a person: "policies[1] (env in (sandbox))" — the policy
// and its rules' selectors, "{}" for an empty one, joined by "and"; "every namespace" for a
// policy without rules — or "default" when no policy did.
func (r *Resolver) DecidedBy(d Decision) string {
	sels := r.PolicySelectors(d.Policy)
	switch {
	case sels == nil:
		return "default"
	case len(sels) == 0:
		return fmt.Sprintf("policies[%d] (every namespace)", d.Policy)
	}
	for i, s := range sels {
		if s == "" {
			sels[i] = "{}"
		}
	}
	return fmt.Sprintf("policies[%d] (%s)", d.Policy, strings.Join(sels, " and "))
}
