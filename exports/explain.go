package exports

import (
	"fmt"
	"slices"
	"strings"
)

// Verdict is what became of a rule when matching a service.
type Verdict string

// The verdicts of Explain.
const (
	// Applies: the rule is the one that applies.
	Applies Verdict = "applies"
	// LessExact: the rule matches the service, but a more exact rule applies instead.
	LessExact Verdict = "less exact"
	// OtherNamespace: the rule names the service (or "*") in another namespace.
	OtherNamespace Verdict = "other namespace"
)

// Candidate is one rule that names the service or "*", and its verdict.
type Candidate struct {
	Rule      int    `json:"Rule"`
	Namespace string `json:"Namespace"`
	Name      string `json:"Name"`
	// Consumers are the rule's consumers as written; Reaches, the consumers they stand for,
	// each sameness group expanded into its members.
	Consumers []Consumer         `json:"Consumers"`
	Reaches   []ExpandedConsumer `json:"Reaches"`
	// Precedence is the rule's level for this service; 0 for a rule of another namespace.
	Precedence Precedence `json:"Precedence,omitempty"`
	Verdict    Verdict    `json:"Verdict"`
	Reason     string     `json:"Reason"`
}

// ExpandedConsumer is a consumer a rule reaches, and the sameness group it came from (""
// when the rule names it directly).
type ExpandedConsumer struct {
	Consumer
	Group string `json:"Group,omitempty"`
}

// String returns "peer east", or "peer east (sameness group g)".
func (c ExpandedConsumer) String() string {
	if c.Group == "" {
		return c.Consumer.String()
	}
	return c.Consumer.String() + " (sameness group " + c.Group + ")"
}

// Explanation says why a service is exported as it is: the rule that applies, if any, and
// every other rule that names the service or "*" with the reason it did not apply.
type Explanation struct {
	Service ServiceName `json:"Service"`
	// Match is the rule that applies; nil when none does, and Reason says why.
	Match      *Match      `json:"Match,omitempty"`
	Reason     string      `json:"Reason,omitempty"`
	Candidates []Candidate `json:"Candidates,omitempty"`
}

// Explain returns the Explanation for a service. Candidates are in rule order. A nil
// Exports exports nothing: its explanation says the partition has no entry.
func (x *Exports) Explain(s ServiceName) Explanation {
	s = s.Canonical()
	e := Explanation{Service: s}
	switch {
	case !concrete(s):
		e.Reason = fmt.Sprintf("%q does not name one service", s.String())
		return e
	case s.Name == ReservedService:
		e.Reason = "the consul service is never exported"
		return e
	}
	var p *partition
	if x != nil {
		p = x.parts[s.Partition]
	}
	if p == nil {
		e.Reason = fmt.Sprintf("partition %q has no exported-services entry", s.Partition)
		return e
	}
	if m, ok := x.Match(s); ok {
		m.Consumers = slices.Clone(m.Consumers) // the explanation is the caller's
		e.Match = &m
	} else {
		e.Reason = "no rule names the service, \"*\" in its namespace, or \"*\" in \"*\""
	}
	for i, r := range p.entry.Services {
		if r.Name != s.Name && r.Name != Wildcard {
			continue
		}
		c := Candidate{Rule: i, Namespace: r.Namespace, Name: r.Name, Consumers: slices.Clone(r.Consumers), Reaches: p.rules[i].reaches()}
		switch {
		case r.Namespace != s.Namespace && r.Namespace != Wildcard:
			c.Verdict = OtherNamespace
			c.Reason = fmt.Sprintf("it is for namespace %q, the service is in %q", r.Namespace, s.Namespace)
		case e.Match != nil && e.Match.Rule == i:
			c.Precedence, c.Verdict = e.Match.Precedence, Applies
			c.Reason = "the most exact rule that matches"
		default:
			c.Precedence = precedenceOf(r)
			c.Verdict = LessExact
			c.Reason = fmt.Sprintf("Services[%d] (%s) is more exact; consumers are never merged across rules", e.Match.Rule, e.Match.Precedence)
		}
		e.Candidates = append(e.Candidates, c)
	}
	return e
}

func precedenceOf(r Service) Precedence {
	switch {
	case r.Namespace == Wildcard:
		return WildcardNamespace
	case r.Name == Wildcard:
		return WildcardName
	}
	return Exact
}

// String renders the explanation a rule a line.
func (e Explanation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", e.Service)
	if e.Match == nil {
		b.WriteString("not exported: " + e.Reason)
	} else {
		reach := list(e.Match.Consumers)
		for _, c := range e.Candidates {
			if c.Rule == e.Match.Rule {
				reach = list(c.Reaches) // with the sameness group each consumer came from
			}
		}
		fmt.Fprintf(&b, "Services[%d] applies (%s): exported to %s", e.Match.Rule, e.Match.Precedence, reach)
	}
	for _, c := range e.Candidates {
		fmt.Fprintf(&b, "\n  Services[%d] %s/%s -> %s: %s: %s", c.Rule, c.Namespace, c.Name, list(c.Consumers), c.Verdict, c.Reason)
	}
	return b.String()
}

func list[T fmt.Stringer](cs []T) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, ", ")
}

// reaches returns the rule's consumers with the group each came from.
func (r *rule) reaches() []ExpandedConsumer {
	out := make([]ExpandedConsumer, len(r.match.Consumers))
	for i, c := range r.match.Consumers {
		out[i].Consumer = c
		if r.from != nil {
			out[i].Group = r.from[i]
		}
	}
	return out
}
