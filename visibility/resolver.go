package visibility

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// NamespaceNameLabel is the label Kubernetes puts on every namespace with its own name; a
// selector on it selects namespaces by name.
const NamespaceNameLabel = "kubernetes.io/metadata.name"

// Resolver decides the visibility of ServiceEntries from the labels of their namespace. It is
// built by Compile, immutable, and safe for concurrent use. A nil *Resolver behaves as the
// disabled one.
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
type Decision struct {
	Visibility Visibility `json:"visibility"`
	// Policy is the index of the deciding policy; -1 when none did: the default applied, the
	// feature is off, or the entry is a Kubernetes Service.
	Policy int `json:"policy"`
}

// String returns, for example, "NAMESPACE (policies[2])" or "PUBLIC (default)".
func (d Decision) String() string {
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
	if errs := c.problems(nil); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	r := &Resolver{
		enabled:         true,
		defaultVis:      c.DefaultVisibility.Effective(),
		applyToSidecars: c.ApplyToSidecars,
		policies:        make([]policy, len(c.Policies)),
	}
	for i, p := range c.Policies {
		cp := policy{visibility: p.Visibility.Effective(), rules: make([]rule, len(p.MatchingRules))}
		for j, mr := range p.MatchingRules {
			sel, err := metav1.LabelSelectorAsSelector(mr.NamespaceSelector)
			if err != nil { // Validate accepted it, so this is not expected; report, don't panic
				return nil, &FieldError{Field: fmt.Sprintf("policies[%d].matchingRules[%d].namespaceSelector", i, j), Value: mr.NamespaceSelector, Detail: err.Error(), Err: err}
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

// ApplyToSidecars reports whether visibility also narrows exportTo for sidecars and gateways.
func (r *Resolver) ApplyToSidecars() bool { return r != nil && r.applyToSidecars }

// DefaultVisibility returns the visibility of entries that no policy matches (Public when the
// feature is off).
func (r *Resolver) DefaultVisibility() Visibility {
	if !r.Enabled() {
		return Public
	}
	return r.defaultVis
}

// Policies returns the number of policies.
func (r *Resolver) Policies() int {
	if r == nil {
		return 0
	}
	return len(r.policies)
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

// Explanation is how a Resolver reached a Decision: every policy, whether it matched, and
// the first rule that failed.
type Explanation struct {
	Enabled           bool          `json:"enabled"`
	Decision          Decision      `json:"decision"`
	DefaultVisibility Visibility    `json:"defaultVisibility"`
	Policies          []PolicyTrace `json:"policies,omitempty"`
}

// PolicyTrace is one policy's part in an Explanation.
type PolicyTrace struct {
	Policy     int        `json:"policy"`
	Visibility Visibility `json:"visibility"`
	Matched    bool       `json:"matched"`
	Decided    bool       `json:"decided"`
	// FailedRule is the index of the first rule that does not select the namespace, -1 when
	// they all do; Selector is that rule's selector.
	FailedRule int    `json:"failedRule"`
	Selector   string `json:"selector,omitempty"`
}

// Explain evaluates every policy against the labels and says which matched, which rule
// stopped the others, and which decided. Its Decision equals Resolve's.
func (r *Resolver) Explain(namespaceLabels labels.Labels) Explanation {
	e := Explanation{Enabled: r.Enabled(), Decision: r.Resolve(namespaceLabels), DefaultVisibility: r.DefaultVisibility()}
	if !e.Enabled {
		return e
	}
	if namespaceLabels == nil {
		namespaceLabels = labels.Set(nil)
	}
	for i, p := range r.policies {
		t := PolicyTrace{Policy: i, Visibility: p.visibility, Matched: true, FailedRule: -1, Decided: i == e.Decision.Policy}
		for j, ru := range p.rules {
			if !ru.selector.Matches(namespaceLabels) {
				t.Matched, t.FailedRule, t.Selector = false, j, ru.text
				break
			}
		}
		e.Policies = append(e.Policies, t)
	}
	return e
}

// String renders the explanation one policy a line, the decision last.
func (e Explanation) String() string {
	if !e.Enabled {
		return "visibility is not configured: every entry is PUBLIC"
	}
	var b strings.Builder
	for _, t := range e.Policies {
		fmt.Fprintf(&b, "policies[%d] %s: ", t.Policy, t.Visibility)
		switch {
		case t.Decided:
			b.WriteString("matches, decides\n")
		case t.Matched:
			fmt.Fprintf(&b, "matches, but policies[%d] decided first\n", e.Decision.Policy)
		default:
			fmt.Fprintf(&b, "no match: matchingRules[%d] (%s) does not select the namespace\n", t.FailedRule, t.Selector)
		}
	}
	if e.Decision.Policy < 0 {
		fmt.Fprintf(&b, "=> %s: no policy matches, the default applies", e.Decision.Visibility)
	} else {
		fmt.Fprintf(&b, "=> %s by policies[%d]", e.Decision.Visibility, e.Decision.Policy)
	}
	return b.String()
}

// Condition types and reasons written to ServiceEntry status.
const (
	ConditionVisibilityApplied = "istio.io/VisibilityApplied"
	ConditionWaypointBound     = "istio.io/WaypointBound"

	ReasonPublic    = "Public"
	ReasonNamespace = "Namespace"
	ReasonNone      = "None"

	ReasonWaypointAccepted                = "WaypointAccepted"
	ReasonCrossNamespaceWaypointForbidden = "CrossNamespaceWaypointForbidden"
	ReasonNotDelivered                    = "NotDelivered"
)

// Condition returns the istio.io/VisibilityApplied condition for a ServiceEntry with
// decision d: status True, reason Public, Namespace or None, and a message naming the policy
// that decided. It returns nil when the feature is disabled (no condition is written then).
// Kubernetes Services never get one; do not call Condition for them. LastTransitionTime and
// ObservedGeneration are left for the caller, which knows the object.
func (r *Resolver) Condition(d Decision) *metav1.Condition {
	if !r.Enabled() {
		return nil
	}
	v := d.Visibility.Effective()
	reason := ReasonPublic
	switch v {
	case Namespace:
		reason = ReasonNamespace
	case None:
		reason = ReasonNone
	}
	msg := fmt.Sprintf("visibility %s set by policies[%d]", v, d.Policy)
	if d.Policy < 0 {
		msg = fmt.Sprintf("visibility %s: no policy matched the namespace, the default applies", v)
	}
	return &metav1.Condition{
		Type:    ConditionVisibilityApplied,
		Status:  metav1.ConditionTrue,
		Reason:  reason,
		Message: msg + "; " + describeVisibility(v),
	}
}

func describeVisibility(v Visibility) string {
	switch v.Effective() {
	case Namespace:
		return "only workloads in the entry's own namespace can discover and reach it"
	case None:
		return "no data plane receives the entry"
	}
	return "every namespace can discover and reach it"
}

// WaypointBinding returns the istio.io/WaypointBound condition for binding a waypoint in
// waypointNamespace to an entry in namespace with visibility v. A NAMESPACE entry refuses a
// waypoint from another namespace (reason CrossNamespaceWaypointForbidden); a NONE entry
// binds no waypoint at all, since no data plane receives it (NotDelivered); otherwise the
// binding is accepted (WaypointAccepted).
func WaypointBinding(namespace, waypointNamespace string, v Visibility) metav1.Condition {
	c := metav1.Condition{Type: ConditionWaypointBound}
	switch {
	case v.Effective() == None:
		c.Status, c.Reason = metav1.ConditionFalse, ReasonNotDelivered
		c.Message = "the entry's visibility is NONE: no data plane receives it, so no waypoint can serve it"
	case v.Effective() == Namespace && waypointNamespace != namespace:
		c.Status, c.Reason = metav1.ConditionFalse, ReasonCrossNamespaceWaypointForbidden
		c.Message = fmt.Sprintf("the entry's visibility is NAMESPACE: the waypoint in namespace %q may not serve an entry of namespace %q", waypointNamespace, namespace)
	default:
		c.Status, c.Reason = metav1.ConditionTrue, ReasonWaypointAccepted
		c.Message = fmt.Sprintf("bound to the waypoint in namespace %q", waypointNamespace)
	}
	return c
}
