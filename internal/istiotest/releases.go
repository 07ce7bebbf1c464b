package istiotest

// The recording of the same configurations through several Istio releases
// (visibility/testdata/istio-releases.json), which the tests of visibility/mesh,
// visibility/inventory and visibility/sidecar hold their packages to: each run's results
// recorded from that release's own code. Releases decodes the file's frame — the runs, each
// case's mesh configuration and proxies, each run's results — and leaves the objects and the
// per-proxy answers as raw JSON for each package to read into its own types.

import (
	"encoding/json"
	"fmt"
	"os"
)

// Releases is the whole file.
type Releases struct {
	Seed  int64         `json:"seed"`
	Runs  []Run         `json:"runs"`
	Cases []ReleaseCase `json:"cases"`
}

// Run is one istiod process every case went through.
type Run struct {
	// Run names it: a release ("1.30.3", "eed52ebb66ad" for the 1.31 build), with
	// "+compat-1.29" for a compatibilityVersion's flags.
	Run    string `json:"run"`
	Istio  string `json:"istio"`
	Commit string `json:"commit"`
	// CompatibilityVersion is the compatibilityVersion whose flags it ran with, nil for none.
	CompatibilityVersion *string `json:"compatibilityVersion"`
	// Env is what that compatibilityVersion's profile set; Features the flags it ran with.
	Env      map[string]string `json:"env"`
	Features map[string]any    `json:"features"`
}

// Release returns the release the run is (as mesh.Config.Istio names it: the 1.31 build is
// "1.31") and its compatibilityVersion ("" for none).
func (r Run) Release() (istio, compatibilityVersion string) {
	istio = r.Istio
	if istio == "eed52ebb66ad" {
		istio = "1.31"
	}
	if r.CompatibilityVersion != nil {
		compatibilityVersion = *r.CompatibilityVersion
	}
	return istio, compatibilityVersion
}

// ReleaseCase is one generated configuration of the recording.
type ReleaseCase struct {
	ID         int             `json:"id"`
	MeshConfig json.RawMessage `json:"meshConfig"`
	// Namespaces maps each namespace to its labels.
	Namespaces map[string]map[string]string `json:"namespaces"`
	// The objects, every one generated (none pre-filtered), as the file spells them.
	ServiceEntries     json.RawMessage `json:"serviceEntries"`
	KubernetesServices json.RawMessage `json:"kubernetesServices"`
	Sidecars           json.RawMessage `json:"sidecars"`
	VirtualServices    json.RawMessage `json:"virtualServices"`
	DestinationRules   json.RawMessage `json:"destinationRules"`
	// Proxies are the proxies asked about; each run's Result.Proxies[i] answers Proxies[i].
	Proxies []struct {
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"proxies"`
	LookupHosts []string `json:"lookupHosts"`
	// Results are each run's, by Run.Run.
	Results map[string]Result `json:"results"`
}

// Result is what one release did with one case.
type Result struct {
	// MeshConfigError is how istiod refused the mesh configuration ("" when it accepted it);
	// MeshConfigStrictError what its strict decode said (logged at debug level only);
	// MeshConfigIgnoredFields the fields it dropped.
	MeshConfigError         string   `json:"meshConfigError"`
	MeshConfigStrictError   string   `json:"meshConfigStrictError"`
	MeshConfigIgnoredFields []string `json:"meshConfigIgnoredFields"`
	// Rejected are the objects its validation refused, in its words; they were never given
	// to that release.
	Rejected             []Rejected `json:"rejected"`
	DiscoveredNamespaces []string   `json:"discoveredNamespaces"`
	// Proxies answer ReleaseCase.Proxies, as istio-routing.json's proxies do.
	Proxies []json.RawMessage `json:"proxies"`
}

// Rejected is an object a release's validation refused.
type Rejected struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Error     string `json:"error"`
}

// LoadReleases reads the file at path.
func LoadReleases(path string) (*Releases, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &Releases{}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}
