package release

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Version
		problem string
	}{
		{"1.30", Version{30, -1}, ""},
		{"1.30.3", Version{30, 3}, ""},
		{"1.3", Version{3, -1}, ""}, // read as text: a release meshscope does not model (Modelled says so)
		{"1.28.0", Version{28, 0}, ""},
		{"1.030", Version{}, "leading zeros"},
		{"1", Version{}, "want 1.MINOR"},
		{"1.30.3.1", Version{}, "want 1.MINOR"},
		{"v1.30", Version{}, "not a decimal number"},
		{"2.0", Version{}, "not an Istio 1.x release"},
		{"1.30.x", Version{}, "not a decimal number"},
		{"", Version{}, "want 1.MINOR"},
		{"1..3", Version{}, "not a decimal number"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			v, problem := ParseVersion(tc.in)
			if tc.problem == "" {
				require.Empty(t, problem)
				assert.Equal(t, tc.want, v)
				return
			}
			assert.Contains(t, problem, tc.problem)
		})
	}
}

func TestModelled(t *testing.T) {
	for in, want := range map[string]string{
		"1.28": "", "1.28.1": "", "1.28.10": "", "1.29": "", "1.29.0": "", "1.30.0": "", "1.30.3": "", "1.30.9": "", "1.31": "", "1.31.2": "",
		"1.28.0": "1.28.0's ztunnel", "1.27": "not a release meshscope models", "1.32": "not a release meshscope models", "1.3": "not a release meshscope models",
	} {
		v, problem := ParseVersion(in)
		require.Empty(t, problem, in)
		if want == "" {
			assert.Empty(t, Modelled(v), in)
			continue
		}
		assert.Contains(t, Modelled(v), want, in)
		assert.Contains(t, Modelled(v), ModelledList(), in)
	}
}

func TestTagVersion(t *testing.T) {
	for in, want := range map[string]string{
		"1.30.3": "1.30.3", "1.30.3-distroless": "1.30.3", "1.31.0-rc.0": "1.31.0", "1.30": "1.30", "1.27.1-debug": "1.27.1",
		"latest": "", "sha256:0123abcd": "", "master-abc123": "", "": "", "1.30.3@sha256:ab": "", "v1.30.3": "",
	} {
		got, ok := TagVersion(in)
		assert.Equal(t, want, got, in)
		assert.Equal(t, want != "", ok, in)
	}
}

func TestCauses(t *testing.T) {
	at := func(istio string) Release { return Make(istio, "", nil) }
	for _, tc := range []struct {
		istio string
		has   []Cause
	}{
		{"1.28", nil},
		{"1.28.1", nil},
		{"1.29", []Cause{ZtunnelCanonicalHost}},
		{"1.30.0", []Cause{DestinationNamespace, ZtunnelCanonicalHost, ZtunnelRankedAddress, ZtunnelCIDRs}},
		{"1.30.2", []Cause{DestinationNamespace, ZtunnelCanonicalHost, ZtunnelRankedAddress, ZtunnelCIDRs}},
		{"1.30.3", []Cause{DestinationNamespace, DefaultExportToLists, ListenerOrder, ZtunnelCanonicalHost, ZtunnelRankedAddress, ZtunnelCIDRs}},
		{"1.30", []Cause{DestinationNamespace, DefaultExportToLists, ListenerOrder, ZtunnelCanonicalHost, ZtunnelRankedAddress, ZtunnelCIDRs}}, // as 1.30.3
		{"1.31", Causes()},
		{"", Causes()},
	} {
		var has []Cause
		for _, c := range Causes() {
			if at(tc.istio).Has(c) {
				has = append(has, c)
			}
		}
		assert.Equal(t, tc.has, has, tc.istio)
	}
	assert.Equal(t, "1.30.3", ListenerOrder.Since())
	assert.Equal(t, "1.29.0", ZtunnelCanonicalHost.Since())
	assert.Empty(t, Cause("x").Since())
	assert.Equal(t, []Cause{DefaultExportToLists, ListenerOrder, SidecarExclusions, ServiceEntryVisibility, ExactHostListeners},
		Differences(at("1.30.2"), at("1.31")))
	assert.Empty(t, Differences(at("1.28.10"), at("1.28")))
}

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		name, istio, compat string
		env                 map[string]string
		pick                bool
		str                 string
	}{
		{"default 1.31", "", "", nil, true, "Istio 1.31 (none given: the newest release meshscope models)"},
		{"1.29 lacks the flag", "1.29.6", "", nil, false, "Istio 1.29.6"},
		{"1.29 with the flag set", "1.29", "", map[string]string{PickBestServiceNamespace: "true"}, false,
			"Istio 1.29 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE ignored: Istio 1.29 does not have it)"},
		{"compat 1.29 turns it off", "1.30.3", "1.29", nil, false, "Istio 1.30.3, compatibilityVersion 1.29 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=false)"},
		{"compat 1.25 too", "1.31", "1.25", nil, false, "Istio 1.31, compatibilityVersion 1.25 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=false)"},
		{"compat 1.30 does not", "1.31", "1.30", nil, true, "Istio 1.31, compatibilityVersion 1.30"},
		{"env wins over the profile", "1.31", "1.29", map[string]string{PickBestServiceNamespace: "True"}, true,
			"Istio 1.31, compatibilityVersion 1.29 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=true)"},
		{"flag off", "1.30", "", map[string]string{PickBestServiceNamespace: "0", "OTHER": "x"}, false, "Istio 1.30 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=false)"},
		{"multi-network", "", "", map[string]string{AmbientMultiNetwork: "true"}, true,
			"Istio 1.31 (none given: the newest release meshscope models; AMBIENT_ENABLE_MULTI_NETWORK=true)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Make(tc.istio, tc.compat, tc.env)
			assert.Equal(t, tc.pick, r.Flag(PickBestServiceNamespace))
			assert.Equal(t, tc.pick, r.Has(DestinationNamespace))
			assert.Equal(t, tc.str, r.String())
		})
	}
	on, set := Make("", "", map[string]string{AmbientMultiNetwork: "false"}).FlagSet(AmbientMultiNetwork)
	assert.True(t, set)
	assert.False(t, on)
	assert.False(t, Release{}.Flag("NOT_A_FLAG"))
	assert.True(t, Make("1.30", "1.29", map[string]string{AmbientMultiNetwork: "1"}).Equal(Make("1.30", "1.29", map[string]string{AmbientMultiNetwork: "true", "X": "y"})))
	assert.False(t, Make("1.30", "", nil).Equal(Make("1.30.3", "", nil)))
	assert.True(t, cmp.Equal(Release{}, Make("", "", nil)), "go-cmp compares with Equal")
	assert.True(t, Release{}.Flag(UnifiedSidecarScope))
}

func TestFlagProblem(t *testing.T) {
	assert.Empty(t, FlagProblem(PickBestServiceNamespace, "false"))
	assert.Empty(t, FlagProblem(EnhancedDestinationRuleMerge, "true"))
	assert.Empty(t, FlagProblem("PILOT_SOMETHING_ELSE", "yes"))
	assert.Contains(t, FlagProblem(PickBestServiceNamespace, "yes"), `"yes" is not a boolean: istiod would log a warning and use the default, true`)
	assert.Contains(t, FlagProblem(EnhancedDestinationRuleMerge, "false"), "meshscope does not model ENABLE_ENHANCED_DESTINATIONRULE_MERGE")
	assert.Contains(t, FlagProblem(ScopeGatewayToNamespace, "1"), "answers only for the default, false")
	assert.Contains(t, FlagProblem(UnifiedSidecarScope, "f"), "set to false")
	assert.Equal(t, []string{AmbientMultiNetwork, EnhancedDestinationRuleMerge, PickBestServiceNamespace, ScopeGatewayToNamespace, UnifiedSidecarScope}, FlagNames())
}

func TestCompatibility(t *testing.T) {
	v := func(s string) Version { x, _ := ParseVersion(s); return x }
	assert.Equal(t, []string{"1.25", "1.26", "1.27"}, Profiles(28))
	assert.Equal(t, []string{"1.25", "1.26", "1.27", "1.28", "1.29", "1.30"}, Profiles(31))
	assert.Empty(t, CompatibilityProblem(v("1.30.3"), "1.29"))
	assert.Empty(t, CompatibilityProblem(v("1.31"), "1.30"))
	p := CompatibilityProblem(v("1.30.3"), "1.30")
	assert.True(t, strings.HasPrefix(p, "unknown compatibility version 1.30 "), p)
	assert.Contains(t, p, "ships profiles for 1.25, 1.26, 1.27, 1.28, 1.29")
	assert.NotEmpty(t, CompatibilityProblem(v("1.28"), "1.28"))
	assert.NotEmpty(t, CompatibilityProblem(v("1.31"), "1.24"))
	assert.NotEmpty(t, CompatibilityProblem(v("1.31"), "1.3"))
	assert.True(t, ProfileSets(v("1.30"), "1.29", PickBestServiceNamespace))
	assert.False(t, ProfileSets(v("1.29"), "1.28", PickBestServiceNamespace), "1.29 has no such flag")
	assert.False(t, ProfileSets(v("1.31"), "1.30", PickBestServiceNamespace))
	assert.False(t, ProfileSets(v("1.31"), "1.29", AmbientMultiNetwork))
}

// FuzzParseVersion: ParseVersion never panics, and what it accepts spells back as given.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"1.30", "1.30.3", "1.030", "1.30.3-distroless", "", "2.0", "1.999999.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, problem := ParseVersion(s)
		if problem == "" {
			require.Equal(t, s, v.String())
			_ = Modelled(v)
		}
		if got, ok := TagVersion(s); ok {
			require.True(t, strings.HasPrefix(s, got))
		}
	})
}

func TestSet(t *testing.T) {
	s := SetOf(ListenerOrder, DestinationNamespace, Cause("Unknown"))
	assert.True(t, s.Has(ListenerOrder))
	assert.True(t, s.Has(DestinationNamespace))
	assert.False(t, s.Has(ExactHostListeners))
	assert.False(t, s.Has(Cause("Unknown")))
	assert.Equal(t, []Cause{DestinationNamespace, ListenerOrder}, s.Causes(), "in the order of Causes")
	assert.Nil(t, Set(0).Causes())
	assert.Equal(t, Causes(), SetOf(Causes()...).Causes())
}
