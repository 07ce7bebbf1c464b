package inventory

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/release"
	"github.com/meshscope/meshscope/internal/strict"
)

// Refusal is an object of an inventory that an Istio release's validation refuses although
// the newest release, which Load and Validate hold an inventory to, accepts it. Such an
// object never exists for that release's istiod: its admission webhook refuses it, so a
// proxy it would have applied to falls back to another Sidecar, the root namespace's
// default, or none.
type Refusal struct {
	// Kind, Namespace and Name name the object ("Sidecar", "shop", "narrow").
	Kind, Namespace, Name string
	// Message is the release's refusal in its words, as its webhook returns it: one
	// message, or several in hashicorp/go-multierror's form ("2 errors occurred:\n\t* …\n\t*
	// …\n\n"), in the order Istio checks them (listener by listener, host by host).
	Message string
	// Problems are the same messages, one *FieldError each, naming the object
	// ("Sidecars[2] (Sidecar shop/narrow)") and its field ("Egress[0].Hosts[1]").
	Problems []error
}

// ValidateFor returns the objects of inv that release r's validation refuses beyond what
// Validate refuses — the newest release's rules, which every view holds an inventory to
// first — in inventory order, each in r's words; none for the newest release. r is a
// mesh.Release (mesh.Config.Release).
//
// What differs by release: a Sidecar egress host whose namespace is "~" followed by a
// namespace name, "*" or "." ("~shop/*", "~*/*.example.com", "~./*") excludes from 1.31 on;
// up to 1.30 Istio's validation (ValidateNamespaceSlashWildcardHostname) refuses it, one
// message per such host: invalid namespace value "~shop" in sidecar. "~/host" is accepted
// by every release; up to 1.30 it names the literal namespace "~", importing nothing and
// excluding nothing.
//
// A view for release r refuses an inventory ValidateFor refuses objects of; a caller
// comparing releases leaves them out of r's view instead (Without) and lists them.
func (inv *Inventory) ValidateFor(r release.Release) []Refusal {
	if inv == nil || r.Has(release.SidecarExclusions) {
		return nil
	}
	var out []Refusal
	for i := range inv.Sidecars {
		sc := &inv.Sidecars[i]
		var where string // spelt for the Sidecar's first problem
		var messages []string
		var problems []error
		for j := range sc.Egress {
			for k, h := range sc.Egress[j].Hosts {
				ns, _, ok := strings.Cut(h, "/")
				if !ok || len(ns) < 2 || ns[0] != '~' {
					continue
				}
				if where == "" {
					where = fmt.Sprintf("%s (Sidecar %s/%s)", strict.Index("Sidecars", i), sc.Namespace, sc.Name)
				}
				msg := "invalid namespace value " + strconv.Quote(ns) + " in sidecar"
				messages = append(messages, msg)
				problems = append(problems, &FieldError{Where: where, Field: fmt.Sprintf("Egress[%d].Hosts[%d]", j, k), Value: h,
					Detail: "Istio " + r.Version() + " refuses the Sidecar: " + msg + " (a namespace after \"~\" excludes from 1.31 on; before, only \"~/host\", the literal namespace \"~\", is accepted)"})
			}
		}
		if len(messages) > 0 {
			out = append(out, Refusal{Kind: "Sidecar", Namespace: sc.Namespace, Name: sc.Name, Message: multiError(messages), Problems: problems})
		}
	}
	return out
}

// multiError spells Istio's validation messages as its webhook returns them: one alone, or
// several in hashicorp/go-multierror's form, "2 errors occurred:\n\t* A\n\t* B\n\n".
func multiError(messages []string) string {
	if len(messages) == 1 {
		return messages[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d errors occurred:\n", len(messages))
	for _, m := range messages {
		b.WriteString("\t* " + m + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// Without returns inv without the refused objects: a new Inventory whose object lists leave
// them out (the objects themselves, and Namespaces, are shared with inv). A caller
// comparing releases builds each release's view from the inventory without what that
// release refuses (see ValidateFor).
func (inv *Inventory) Without(refused []Refusal) *Inventory {
	if inv == nil {
		return nil
	}
	out := *inv
	if len(refused) == 0 {
		return &out
	}
	gone := make(map[[3]string]bool, len(refused))
	for _, r := range refused {
		gone[[3]string{r.Kind, r.Namespace, r.Name}] = true
	}
	out.Sidecars = nil
	for _, sc := range inv.Sidecars {
		if !gone[[3]string{"Sidecar", sc.Namespace, sc.Name}] {
			out.Sidecars = append(out.Sidecars, sc)
		}
	}
	return &out
}
