package peermeta

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/testkit"
)

func chainRequest(r testkit.ChainRequest) chain.Request {
	return chain.Request{Service: exports.ServiceName{Partition: r.Partition, Namespace: r.Namespace, Name: r.Service}, Datacenter: r.Datacenter, TrustDomain: r.TrustDomain}
}

// routingCase is a case of the whole chains of Consul's server (testdata/README.md says how
// they were recorded).
type routingCase struct {
	testkit.Case
	Request testkit.ChainRequest
	Entries []json.RawMessage
	Writes  []testkit.Write
	Consul  map[string]any // CompiledDiscoveryChain's JSON, a subset of its fields
	Exports *struct {
		Peer        string
		Catalog     map[string]bool // service -> has a connect-enabled instance
		Services    []string
		DiscoChains map[string]struct {
			Protocol   string
			TCPTargets []string
		}
	}
}

// The classes of the comparison: what agrees, and the differences meshscope keeps on purpose.
const (
	rChainAgrees    = "chain: every field of Consul's JSON, as Consul's"
	rChainStart     = "chain: a failover candidate resolving to its node's target dropped"
	rCaseEnterprise = "case: a route or split names a namespace or partition (Enterprise reading), not compared"
	rExportsAgree   = "exports: the services, chains, protocols and tcp targets, as Consul's"
)

// TestRoutingAgainstConsul replays every recorded case through Config.Apply — each write's
// acceptance, its stage and Consul's words among the reasons — compiles the request's chain
// from what Apply stored and compares its JSON with Consul's, field by field, and replicates
// what a "*" rule exports to the peer east. Only the classes above may differ from Consul's
// answer; each is counted.
func TestRoutingAgainstConsul(t *testing.T) {
	counts := testkit.Compare(t, testkit.LoadCases[routingCase](t, "testdata/consul-routing.json", 1000), replayRouting)
	require.Greater(t, counts[rChainAgrees], 850)
	require.Greater(t, counts[testkit.WriteStore], 900)
	require.Greater(t, counts[rExportsAgree], 150)
}

// replayRouting returns what disagrees in one case, counting the classes.
func replayRouting(tc routingCase, counts map[string]int) []string {
	for i, w := range tc.Writes {
		if replay.Leave(w) == "" && namesOtherNamespace(tc.Entries[i]) {
			counts[rCaseEnterprise]++
			return nil
		}
	}
	var c Config
	if problems := replay.Run(tc.Entries, tc.Writes, func(data []byte) (any, error) { return c.Apply(data) }, counts); len(problems) > 0 {
		return problems // the chain is compiled from another store
	}
	got, err := chain.Compile(chainRequest(tc.Request), c.Entries)
	if err != nil {
		return []string{fmt.Sprintf("Consul's server compiles the chain of what it stored; meshscope: %v", err)}
	}
	class, diffs := compareChainJSON(tc.Consul, got)
	if len(diffs) > 0 {
		return diffs
	}
	counts[class]++
	if tc.Exports == nil {
		return nil
	}
	if problem := compareExports(tc, c); problem != "" {
		return []string{problem}
	}
	counts[rExportsAgree]++
	return nil
}

// replay judges each write against Consul's answer: acceptance, stage, and Consul's words in
// a reason (consulReason). A write Consul CE refuses for a field only Consul Enterprise
// accepts (a namespace or partition), which meshscope accepts, is left out.
var replay = testkit.Replay{
	Leave: func(w testkit.Write) string {
		if w.Stage == "decode" && (strings.Contains(w.Error, "namespaces are a consul enterprise feature") || strings.Contains(w.Error, `invalid config key "Partition"`)) ||
			strings.HasSuffix(w.Error, "requires Consul Enterprise") {
			return testkit.WriteEnterprise
		}
		return ""
	},
	Carries: func(w testkit.Write, r string) bool { return strings.Contains(r, consulReason(w.Stage, w.Error)) },
	Agree:   testkit.AgreeByStage,
}

// namesOtherNamespace reports whether a router or splitter entry sends requests to a
// namespace or partition other than the default: Consul CE, with one namespace, reads the
// default namespace's splitter and resolver for it, and Enterprise the named one's.
func namesOtherNamespace(raw json.RawMessage) bool {
	var e struct {
		Routes []struct {
			Destination *struct{ Namespace, Partition string }
		}
		Splits []struct{ Namespace, Partition string }
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return false
	}
	other := func(s string) bool { return s != "" && s != "default" }
	for _, r := range e.Routes {
		if d := r.Destination; d != nil && (other(d.Namespace) || other(d.Partition)) {
			return true
		}
	}
	for _, s := range e.Splits {
		if other(s.Namespace) || other(s.Partition) {
			return true
		}
	}
	return false
}

// consulReason is what meshscope's reasons must contain for a refusal Consul recorded: its
// message, or for a decode error the field it names (Consul's decoder words it its own way).
func consulReason(stage, msg string) string {
	if stage == "decode" {
		if _, field, ok := strings.Cut(msg, `invalid config key "`); ok {
			field, _, _ = strings.Cut(field, `"`)
			return fmt.Sprintf("unknown field %q", field)
		}
	}
	return msg
}

// compareChainJSON holds every field of Consul's JSON of the chain to meshscope's, a local
// target's SpiffeID to its Target's. A resolver node's failover list that differs only in
// Consul listing the node's own target again is class rChainStart.
func compareChainJSON(want map[string]any, c *chain.Chain) (string, []string) {
	data, err := json.Marshal(c)
	if err != nil {
		return "", []string{err.Error()}
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		return "", []string{err.Error()}
	}
	for id, t := range got["Targets"].(map[string]any) {
		if s := c.Targets[id].SpiffeID; s != "" {
			t.(map[string]any)["SpiffeID"] = s
		}
	}
	class := rChainAgrees
	for key, n := range want["Nodes"].(map[string]any) {
		r, _ := n.(map[string]any)["Resolver"].(map[string]any)
		f, _ := r["Failover"].(map[string]any)
		if f == nil {
			continue
		}
		own := r["Target"]
		ids := f["Targets"].([]any)
		without := slices.DeleteFunc(slices.Clone(ids), func(id any) bool { return id == own })
		if len(without) == len(ids) {
			continue
		}
		gotNode, _ := got["Nodes"].(map[string]any)[key].(map[string]any)
		gotR, _ := gotNode["Resolver"].(map[string]any)
		gotF, _ := gotR["Failover"].(map[string]any)
		if gotF == nil && len(without) == 0 || gotF != nil && reflect.DeepEqual(gotF["Targets"], without) {
			class = rChainStart
			if len(without) == 0 {
				delete(r, "Failover")
			} else {
				f["Targets"] = without
			}
		}
	}
	var diffs []string
	subsetDiff(want, got, "Chain", &diffs)
	return class, diffs
}

// subsetDiff records, under path, every field of want that got lacks or holds differently.
func subsetDiff(want, got any, path string, diffs *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: Consul %s, meshscope %s", path, mustJSON(want), mustJSON(got)))
			return
		}
		for _, k := range slices.Sorted(maps.Keys(w)) {
			if _, ok := g[k]; !ok {
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: Consul %s, meshscope has none", path, k, mustJSON(w[k])))
				continue
			}
			subsetDiff(w[k], g[k], path+"."+k, diffs)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*diffs = append(*diffs, fmt.Sprintf("%s: Consul %s, meshscope %s", path, mustJSON(want), mustJSON(got)))
			return
		}
		for i := range w {
			subsetDiff(w[i], g[i], fmt.Sprintf("%s[%d]", path, i), diffs)
		}
	default:
		if !reflect.DeepEqual(want, got) {
			*diffs = append(*diffs, fmt.Sprintf("%s: Consul %s, meshscope %s", path, mustJSON(want), mustJSON(got)))
		}
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// compareExports replicates to the peer east what Apply stored, with the recorded catalog,
// and compares it with what Consul's ExportedServicesForPeer lists: the services replicated
// with a chain and each one's protocol (and, for a chain that is not HTTP-like, its
// targets), and the plain ones.
func compareExports(tc routingCase, c Config) string {
	x := tc.Exports
	ex, err := exports.CompileGroups(c.Entries.SamenessGroups, c.Exports...)
	if err != nil {
		return fmt.Sprintf("exports: %v", err)
	}
	in := Input{Exporter: Exporter{Peer: x.Peer, Partition: "default", Datacenter: "dc1", TrustDomain: tc.Request.TrustDomain},
		Exports: ex, Entries: c.Entries}
	for _, name := range slices.Sorted(maps.Keys(x.Catalog)) {
		s := exports.ServiceName{Partition: "default", Namespace: "default", Name: name}
		in.Catalog = append(in.Catalog, s)
		if x.Catalog[name] {
			in.Connect = append(in.Connect, s)
		}
	}
	rep, err := Replicate(in)
	if err != nil {
		return fmt.Sprintf("exports: %v", err)
	}
	if len(rep.Failed)+len(rep.Excluded) > 0 {
		return fmt.Sprintf("exports: meshscope fails %v, excludes %v", rep.Failed, rep.Excluded)
	}
	gotChains := map[string]string{}
	for _, s := range rep.Services {
		gotChains[s.Service.Name] = s.PeerMeta.Protocol
	}
	wantChains := map[string]string{}
	for name, info := range x.DiscoChains {
		wantChains[name] = info.Protocol
	}
	if !maps.Equal(wantChains, gotChains) {
		return fmt.Sprintf("exports: chains and protocols: Consul %v, meshscope %v", wantChains, gotChains)
	}
	var gotPlain, wantPlain []string
	for _, s := range rep.Plain {
		gotPlain = append(gotPlain, s.Name)
	}
	for _, name := range x.Services {
		if _, ok := x.DiscoChains[name]; !ok {
			wantPlain = append(wantPlain, name)
		}
	}
	if !slices.Equal(wantPlain, gotPlain) {
		return fmt.Sprintf("exports: plain services: Consul %v, meshscope %v", wantPlain, gotPlain)
	}
	for name, info := range x.DiscoChains {
		if info.TCPTargets == nil {
			continue
		}
		req := chain.Request{Service: exports.ServiceName{Name: name}, Datacenter: "dc1", TrustDomain: tc.Request.TrustDomain}
		ch, err := chain.Compile(req, c.Entries)
		if err != nil {
			return fmt.Sprintf("exports: %s: %v", name, err)
		}
		if !slices.Equal(info.TCPTargets, ch.TargetIDs()) {
			return fmt.Sprintf("exports: %s's tcp targets: Consul %v, meshscope %v", name, info.TCPTargets, ch.TargetIDs())
		}
	}
	return ""
}
