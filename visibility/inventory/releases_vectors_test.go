package inventory

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/release"
)

// newestRun is the run of istio-releases.json whose validation Load and Validate hold an
// inventory to: the 1.31 build.
const newestRun = "eed52ebb66ad"

// releasesCase returns a case of ../testdata/istio-releases.json: its objects, every one
// generated.
func releasesCase(t *testing.T, c *istiotest.ReleaseCase) istiotest.Objects {
	o, err := c.Objects()
	require.NoError(t, err)
	return o
}

// TestValidateForAgainstReleases holds the release's validation to each run's rejected
// objects: an inventory of everything the newest release accepts loads (Load and Validate
// are the newest release's rules; the objects it refuses are refused by Load with Istio's
// messages), and ValidateFor, for each run's release, refuses exactly the other objects that
// run rejected, each with the release's words as its webhook returned them. An object both
// refuse, with more messages from the older release (a Sidecar with an egress listener
// without a port that is not the last, and a "~*/" host), gets the newest release's messages
// from Load and the others from ValidateFor.
func TestValidateForAgainstReleases(t *testing.T) {
	f, err := istiotest.LoadReleases("../testdata/istio-releases.json")
	require.NoError(t, err)
	counts, step := map[string]int{}, longtest.N(3, 1)
	for i := 0; i < len(f.Cases); i += step {
		c := &f.Cases[i]
		all := releasesCase(t, c)
		newest := map[istiotest.ObjectKey]bool{}
		for _, r := range c.Results[newestRun].Rejected {
			newest[istiotest.ObjectKey{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}] = true
		}
		accepted := all.Without(newest)
		inv, err := Load(dump(t, &accepted), "")
		require.NoError(t, err, "case %d: what the newest release accepts loads", c.ID)
		counts["cases loaded"]++
		for _, run := range f.Runs {
			istio, compat := run.Release()
			r := release.Make(istio, compat, run.Env)
			got := inv.ValidateFor(r)
			var want []istiotest.Rejected
			for _, rej := range c.Results[run.Run].Rejected {
				if !newest[istiotest.ObjectKey{Kind: rej.Kind, Namespace: rej.Namespace, Name: rej.Name}] {
					want = append(want, rej)
				}
			}
			require.Len(t, got, len(want), "case %d, %s: %+v", c.ID, run.Run, got)
			for j := range want {
				at := fmt.Sprintf("case %d, %s: %s %s/%s", c.ID, run.Run, want[j].Kind, want[j].Namespace, want[j].Name)
				assert.Equal(t, [3]string{want[j].Kind, want[j].Namespace, want[j].Name}, [3]string{got[j].Kind, got[j].Namespace, got[j].Name}, at)
				assert.Equal(t, want[j].Error, got[j].Message, at)
				assert.Len(t, got[j].Problems, len(istiotest.IstioMessages(want[j].Error)), at)
				counts["refused by the release alone, in its words"]++
			}
			counts["refused by every release"] += checkRefusedByBoth(t, c, all, run, r, newest)
		}
	}
	t.Logf("%s: %v", longtest.Every(step), counts)
	if step > 1 {
		return
	}
	assert.Equal(t, map[string]int{"cases loaded": 100, "refused by the release alone, in its words": 4 * 62, "refused by every release": 7 * 91}, counts)
}

// checkRefusedByBoth checks the objects run and the newest release both refused: Load
// refuses each, alone beside its namespace, with the newest release's messages, and those
// messages together with ValidateFor's for the object are run's. It returns how many.
func checkRefusedByBoth(t *testing.T, c *istiotest.ReleaseCase, all istiotest.Objects, run istiotest.Run, r release.Release, newest map[istiotest.ObjectKey]bool) int {
	n := 0
	for _, rej := range c.Results[run.Run].Rejected {
		k := istiotest.ObjectKey{Kind: rej.Kind, Namespace: rej.Namespace, Name: rej.Name}
		if !newest[k] {
			continue
		}
		n++
		at := fmt.Sprintf("case %d, %s: %s %s/%s", c.ID, run.Run, rej.Kind, rej.Namespace, rej.Name)
		var mine string
		for _, nr := range c.Results[newestRun].Rejected {
			if (istiotest.ObjectKey{Kind: nr.Kind, Namespace: nr.Namespace, Name: nr.Name}) == k {
				mine = nr.Error
			}
		}
		one := all.Keep(func(o istiotest.ObjectKey) bool { return o == k })
		var sc *istiotest.Sidecar
		if rej.Kind == "Sidecar" {
			sc = &one.Sidecars[0]
		}
		_, err := Load(dump(t, &one), "")
		require.Error(t, err, at)
		for _, m := range istiotest.IstioMessages(mine) {
			assert.Contains(t, err.Error(), m, at)
		}
		messages := istiotest.IstioMessages(mine)
		if sc != nil { // the release's own refusals of it, beside the newest's
			egress := make([]Egress, len(sc.Egress))
			for j, e := range sc.Egress {
				egress[j].Hosts = e.Hosts
			}
			alone := Inventory{Sidecars: []Sidecar{{Namespace: sc.Namespace, Name: sc.Name, Egress: egress}}}
			for _, refusal := range alone.ValidateFor(r) {
				messages = append(messages, istiotest.IstioMessages(refusal.Message)...)
			}
		}
		assert.Equal(t, rej.Error, multiError(messages), "%s: the newest release's messages (listener checks first), then the release's own (host checks)", at)
	}
	return n
}

// TestValidateFor: which egress hosts each release refuses, and how Without leaves the
// refused objects out.
func TestValidateFor(t *testing.T) {
	inv := &Inventory{Sidecars: []Sidecar{
		{Namespace: "shop", Name: "ok", Egress: []Egress{{Hosts: []string{"./*", "~/*", "istio-system/*"}}}},
		{Namespace: "shop", Name: "excludes", Egress: []Egress{{Port: 80, Hosts: []string{"*/*", "~payments/*"}}, {Hosts: []string{"~*/*.example.com", "~./db.shop.svc.cluster.local"}}}},
		{Namespace: "web", Name: "one", Egress: []Egress{{Hosts: []string{"*/*", "~shop/*"}}}},
	}}
	for _, istio := range []string{"1.28", "1.29.6", "1.30.0", "1.30.3"} {
		got := inv.ValidateFor(release.Make(istio, "", nil))
		require.Len(t, got, 2, istio)
		assert.Equal(t, Refusal{Kind: "Sidecar", Namespace: "shop", Name: "excludes",
			Message:  "3 errors occurred:\n\t* invalid namespace value \"~payments\" in sidecar\n\t* invalid namespace value \"~*\" in sidecar\n\t* invalid namespace value \"~.\" in sidecar\n\n",
			Problems: got[0].Problems}, got[0], istio)
		require.Len(t, got[0].Problems, 3)
		assert.Equal(t, `Sidecars[1] (Sidecar shop/excludes): Egress[1].Hosts[0]: Istio `+istio+` refuses the Sidecar: invalid namespace value "~*" in sidecar (a namespace after "~" excludes from 1.31 on; before, only "~/host", the literal namespace "~", is accepted)`,
			got[0].Problems[1].Error())
		assert.Equal(t, `invalid namespace value "~shop" in sidecar`, got[1].Message)
		without := inv.Without(got)
		require.Len(t, without.Sidecars, 1)
		assert.Equal(t, "ok", without.Sidecars[0].Name)
		assert.Len(t, inv.Sidecars, 3, "inv itself unchanged")
	}
	assert.Empty(t, inv.ValidateFor(release.Make("1.31", "", nil)))
	assert.Empty(t, inv.ValidateFor(release.Release{}))
	assert.Nil(t, (*Inventory)(nil).ValidateFor(release.Make("1.28", "", nil)))
	assert.Nil(t, (*Inventory)(nil).Without(nil))
	assert.Same(t, &inv.Sidecars[0], &inv.Without(nil).Sidecars[0], "nothing refused: the objects are shared")
	assert.True(t, strings.HasPrefix(multiError([]string{"a", "b"}), "2 errors occurred:\n\t* a\n\t* b\n\n"))
}
