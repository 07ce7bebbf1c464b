package visibility

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

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
	e := Explanation{Enabled: r.Enabled(), Decision: r.Resolve(namespaceLabels), DefaultVisibility: r.defaultVisibility()}
	if !e.Enabled {
		return e
	}
	if namespaceLabels == nil {
		namespaceLabels = labels.Set(nil)
	}
	for i, p := range r.policies {
		t := PolicyTrace{Policy: i, Visibility: p.visibility, Matched: true, FailedRule: NoIndex, Decided: i == e.Decision.Policy}
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
