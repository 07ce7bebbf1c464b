package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

// upgrade is an upgrade's dry run: the causes the two releases differ by, each of which may
// change what a proxy or ztunnel gets, and the objects each release's webhook refuses (by
// release), which are left out of its view.
type upgrade struct {
	Causes  []mesh.Cause                   `json:"causes"`
	Refused map[string][]inventory.Refusal `json:"refused,omitempty"`
	// Ztunnel says why ztunnel's answers are not compared, when they are not.
	Ztunnel string `json:"ztunnel,omitempty"`
}

func upgradeOf(cur, next *config) *upgrade {
	u := &upgrade{Causes: mesh.Differences(cur.mesh.Release(), next.mesh.Release()), Refused: map[string][]inventory.Refusal{}}
	for _, side := range []*config{cur, next} {
		if len(side.refused) > 0 {
			u.Refused[side.mesh.Release().String()] = side.refused
		}
	}
	return u
}

// sidecarCauses are the causes by which a release changes what a sidecar gets that
// visibility/sidecar does not answer per release yet: it answers as the newest release
// whatever the configuration's (serviceEntryVisibility excepted, which views gives it as the
// release applies it; objects a release refuses are left out of its view). HOOK: when the
// sidecar view reads the release, this list empties, and changeCauses names the causes of
// each change of an upgrade's dry run.
var sidecarCauses = []mesh.Cause{mesh.DestinationNamespace, mesh.DefaultExportToLists, mesh.ListenerOrder, mesh.SidecarExclusions, mesh.ExactHostListeners}

// changeCauses returns the causes that make a change of the sidecar dry run between two
// releases. HOOK: the sidecar view does not say them yet, so none is claimed.
func changeCauses(sidecar.Change) []mesh.Cause { return nil }

// sidecarNote says what the sidecar view does not answer yet ("" when nothing): for each
// release answered for, the causes of sidecarCauses it differs from the newest release by;
// and the Gateway API routes, which it reads but does not yet route by (HOOK: istiod turns
// them into VirtualServices every sidecar selects; when the view does, this note goes).
func sidecarNote(in inputs) string {
	var releases, out []string
	routes := 0
	for _, c := range []*config{in.cur, in.next} {
		if c == nil {
			continue
		}
		routes += len(c.inv.Routes)
		var causes []string
		for _, d := range mesh.Differences(mesh.Release{}, c.mesh.Release()) {
			if slices.Contains(sidecarCauses, d) {
				causes = append(causes, string(d))
			}
		}
		if note := "Istio " + c.mesh.Release().Version() + " differs from it by " + strings.Join(causes, ", "); len(causes) > 0 && !slices.Contains(releases, note) {
			releases = append(releases, note)
		}
	}
	if len(releases) > 0 {
		out = append(out, "the sidecar view answers as Istio "+mesh.Newest+" does, and "+strings.Join(releases, "; ")+
			", which it does not answer per release yet: what these causes change for a proxy is not shown")
	}
	if routes > 0 {
		out = append(out, "the Gateway API routes (HTTPRoute, GRPCRoute, TCPRoute, TLSRoute) are read but not yet in the sidecar view: "+
			"what they route, and what a dry run changes by them, is not shown")
	}
	return strings.Join(out, "; ")
}

// printUpgrade prints an upgrade's dry run.
func (r *report) printUpgrade(p *printer) {
	fmt.Fprintf(p.w, "\nUPGRADE: %s -> %s (a dry run: nothing is applied)\n", r.Release, r.NewRelease)
	causes := make([]string, len(r.Upgrade.Causes))
	for i, c := range r.Upgrade.Causes {
		causes[i] = fmt.Sprintf("%s (from %s)", c, c.Since())
	}
	cli.Wrap(p.w, "  ", "the releases differ by (each may change what a proxy or ztunnel gets): "+cmp.Or(strings.Join(causes, ", "), "nothing meshscope models"))
	for _, name := range []string{r.Release, r.NewRelease} {
		for _, f := range r.Upgrade.Refused[name] {
			cli.Wrap(p.w, "  ", fmt.Sprintf("refused by %s, left out of its view: %s %s/%s: %s", name, f.Kind, f.Namespace, f.Name, strings.Join(strings.Fields(f.Message), " ")))
		}
	}
	if r.Upgrade.Ztunnel != "" {
		cli.Wrap(p.w, "  ", r.Upgrade.Ztunnel)
	}
}
